"""Branching a saved session at a turn for the app: what `workbench branch` does, without the printing.

The new session inherits the parent's complete turns up to the branch point and takes over as a live
session; a scripted one resumes its script after the responses already played.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.agent.providers import make_provider
from workbench.session.events import ModelResponse, SessionStart
from workbench.session.history import complete_prefix, complete_turns, effective, rebuild
from workbench.session.loop import Limits
from workbench.session.store import SessionSetup, create_session, load_session, task_of
from workbench.tui.launch import LaunchError, LiveSession, provider_for


def branch_session(parent: Path, turn: int, root: Path, script_dirs: Iterable[Path]) -> LiveSession:
    """A new session under `root` with `parent`'s first `turn` turns, its provider ready to go on.
    A LaunchError when the turn is out of range or the provider cannot start (a missing key)."""
    events, start, _ = load_session(parent)
    live = effective(events)
    turns = complete_turns(live)
    if not 0 <= turn <= turns:
        raise LaunchError(f"{parent.name} has {turns} complete turns; cannot branch at turn {turn}")
    history = complete_prefix(live, up_to_turn=turn)
    played = sum(1 for e in history if isinstance(e, ModelResponse))
    levels = set(start.levels)
    provider = _provider(start, levels, played, script_dirs)
    limits = Limits(start.budget, start.wall_clock_s, start.cost_limit_usd)
    setup = SessionSetup(task_of(start), levels, provider, limits, start.mode, start.base_url)
    folder, log = create_session(setup, root, history, parent={"session": str(parent), "turn": turn})
    new_events, new_start, _ = load_session(folder)
    return LiveSession(setup, folder, log, rebuild(new_events), new_events, new_start)


def _provider(start: SessionStart, levels: set[int], played: int, script_dirs: Iterable[Path]) -> Provider:
    """The parent's provider; a scripted one plays the script recorded in session_start (when it still
    exists, else the task's script) from the response after the ones the branch inherits."""
    recorded = start.script
    if start.provider == "scripted" and recorded and Path(recorded).is_file():
        return make_provider("scripted", start.model, script=Path(recorded), start_at=played)
    return provider_for(start.provider, start.task, levels, script_dirs, start.model, played, start.base_url)
