"""Helpers for the app's Pilot tests: wait on a condition of the app, never a fixed sleep."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from conftest import FIXTURES, REPO
from textual.pilot import Pilot

EXAMPLES = REPO / "sessions" / "examples"
# the five demos recorded on an H200 (docs/app.md). The pair Compare shows: sliding_window_max, where L1 changes the
# algorithm, unguided (stays on the direct method) and guided (L1+L2+L3)
GUIDED = EXAMPLES / "sliding_window_max-guided-L123-20261203-095138-9a39"
UNGUIDED = EXAMPLES / "sliding_window_max-unguided-20261203-094954-fa60"
HUMAN = EXAMPLES / "sliding_window_max-human-20261203-095225-67c8"
# the memory-bound pair
RMSNORM_GUIDED = EXAMPLES / "rmsnorm_residual-guided-L123-20261203-094638-01b2"
RMSNORM_UNGUIDED = EXAMPLES / "rmsnorm_residual-unguided-20261203-094417-db44"


async def wait_until(pilot: Pilot, condition: Callable[[], object], timeout: float = 120.0, what: str = "") -> None:
    """Let the app run until condition() is true; fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


def shows_every_event(screen: object) -> bool:
    """A session screen has shown every event its session has so far: the loop's state says a turn is done before
    the screen's batched events have reached the transcript (a fixed pause is not enough on a loaded machine)."""
    shown, kept = screen.transcript.shown, screen.feed.events  # type: ignore[attr-defined]
    return len(shown) == len(kept) and not screen._pending  # type: ignore[attr-defined]


def app_test(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async Pilot test on a fresh event loop (no async plugin for pytest needed)."""

    @functools.wraps(test)
    def run(*args: object, **kwargs: object) -> None:
        asyncio.run(test(*args, **kwargs))  # type: ignore[arg-type]

    return run


def choose_provider(app: object, name: str) -> None:
    """In the new-session form on screen, pick a provider (a person drives by default when no key is set)."""
    from textual.widgets import Select

    app.screen.query_one("#provider", Select).value = name  # type: ignore[attr-defined]


def footer_keys(screen: object) -> set[str]:
    """The keys the footer shows on a screen now (those that mean something in its state)."""
    active = screen.active_bindings.items()  # type: ignore[attr-defined]
    return {key for key, bound in active if bound.binding.show and bound.enabled}


def slow_script(folder: Path, seconds_per_turn: float = 0.6) -> Path:
    """The fixture's scale_add script with each turn's text streamed slowly: turns keep coming for a while."""
    turns = json.loads((FIXTURES / "scripts" / "scale_add.json").read_text())
    for turn in turns:
        turn["content"].insert(0, {"type": "text", "text": "x" * 24 * 6})
        turn["delay_s"] = seconds_per_turn / 6
    folder.mkdir(exist_ok=True)
    (folder / "scale_add.json").write_text(json.dumps(turns))
    return folder
