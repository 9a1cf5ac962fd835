"""Branching a saved session at a turn for the app: what `workbench branch` does, without the printing.

The new session inherits the parent's complete turns up to the branch point and takes over as a live
session; a scripted one resumes its script after the responses already played.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.agent.providers import make_provider
from workbench.session.history import complete_prefix, effective, rebuild
from workbench.session.log import Event
from workbench.session.loop import Limits
from workbench.session.store import SessionSetup, create_session, load_session, task_of
from workbench.tui.launch import LaunchError, LiveSession, provider_for


def complete_turns(events: list[Event]) -> int:
    return max((int(e["turn"]) for e in effective(events) if e["kind"] == "turn_end"), default=0)


def branch_session(parent: Path, turn: int, root: Path, script_dirs: Iterable[Path]) -> LiveSession:
    """A new session under `root` with `parent`'s first `turn` turns, its provider ready to go on.
    A LaunchError when the turn is out of range or the provider cannot start (a missing key)."""
    events, start, _ = load_session(parent)
    turns = complete_turns(events)
    if not 0 <= turn <= turns:
        raise LaunchError(f"{parent.name} has {turns} complete turns; cannot branch at turn {turn}")
    history = complete_prefix(effective(events), up_to_turn=turn)
    played = sum(1 for e in history if e["kind"] == "model_response")
    levels = set(start["levels"])
    provider = _provider(start, levels, played, script_dirs)
    limits = Limits(start["budget"], start.get("wall_clock_s"), start.get("cost_limit_usd"))
    setup = SessionSetup(task_of(start), levels, provider, limits, start["mode"], start.get("base_url"))
    folder, log = create_session(setup, root, history, parent={"session": str(parent), "turn": turn})
    new_events = load_session(folder)[0]
    return LiveSession(setup, folder, log, rebuild(new_events), new_events)


def _provider(start: Event, levels: set[int], played: int, script_dirs: Iterable[Path]) -> Provider:
    """The parent's provider; a scripted one plays the script recorded in session_start (when it still
    exists, else the task's script) from the response after the ones the branch inherits."""
    recorded = start.get("script")
    if start["provider"] == "scripted" and recorded and Path(recorded).is_file():
        return make_provider("scripted", start["model"], script=Path(recorded), start_at=played)
    return provider_for(
        start["provider"], start["task"], levels, script_dirs, start["model"], played, start.get("base_url")
    )
