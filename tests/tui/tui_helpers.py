"""Helpers for the app's Pilot tests: wait on a condition of the app, never a fixed sleep."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable

from conftest import REPO
from textual.pilot import Pilot

EXAMPLES = REPO / "sessions" / "examples"
GUIDED = EXAMPLES / "rmsnorm_residual-guided-L123-20261129-153101-9270"
UNGUIDED = EXAMPLES / "rmsnorm_residual-unguided-20261129-153123-0dc8"


async def wait_until(pilot: Pilot, condition: Callable[[], object], timeout: float = 120.0, what: str = "") -> None:
    """Let the app run until condition() is true; fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


def app_test(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async Pilot test on a fresh event loop (no async plugin for pytest needed)."""

    @functools.wraps(test)
    def run(*args: object, **kwargs: object) -> None:
        asyncio.run(test(*args, **kwargs))  # type: ignore[arg-type]

    return run
