"""Setting up a live session for the app: a new one on a task, or an unfinished one resumed.

What `workbench run` and `workbench resume` do before they drive a loop headless, without the
printing; the app then builds the loop with its own callbacks (store.build_loop).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.agent.providers import make_provider
from workbench.session.events import Event, SessionStart
from workbench.session.history import SessionState, effective, rebuild
from workbench.session.log import SessionLog
from workbench.session.loop import Limits
from workbench.session.store import (
    NotResumable,
    SessionSetup,
    claim_resume,
    create_session,
    load_session,
    reopen,
    task_of,
)
from workbench.session.writer import SessionBusy
from workbench.tasks import load_task
from workbench.tui.catalog import find_script


class LaunchError(ValueError):
    """A session the app cannot start: no script, no key, a task with no guidance. One line."""


@dataclass
class LiveSession:
    setup: SessionSetup
    folder: Path
    log: SessionLog
    state: SessionState
    history: list[Event]  # what the log held when the app took it over
    start: SessionStart


def provider_for(name: str, task: str, levels: set[int], script_dirs: Iterable[Path], model: str | None = None,
                 start_at: int = 0, base_url: str | None = None) -> Provider:  # fmt: skip
    if name == "scripted":
        script = find_script(task, levels, script_dirs)
        if script is None:
            raise LaunchError(f"no script for task {task}: the scripted provider needs one")
        return make_provider("scripted", model, script=script, start_at=start_at)
    try:
        return make_provider(name, model, base_url)
    except ValueError as exc:  # a missing key (MissingKeyError is a ValueError) or an unknown name
        raise LaunchError(str(exc)) from None


def new_session(task_name: str, levels: set[int], provider: Provider, mode: str, root: Path,
                budget: int = 350, base_url: str | None = None) -> LiveSession:  # fmt: skip
    task = load_task(task_name)
    if levels and task.guidance_path is None:
        raise LaunchError(f"task {task.name} has no guidance")
    setup = SessionSetup(task, levels, provider, Limits(budget), mode, base_url)
    folder, log = create_session(setup, root)
    events, start, _ = load_session(folder)
    return LiveSession(setup, folder, log, rebuild(events), events, start)


def resume_session(folder: Path, script_dirs: Iterable[Path]) -> LiveSession:
    """Reopen an unfinished or interrupted session after its last complete turn, with its provider."""
    try:
        writer, point = claim_resume(folder, "the workbench app")
    except (NotResumable, SessionBusy) as exc:  # busy: another process runs it; resetting its workspace would harm it
        raise LaunchError(str(exc)) from None
    with writer.released_on_error():
        start, state = point.start, point.state
        levels = set(start.levels)
        provider = provider_for(start.provider, start.task, levels, script_dirs, start.model, state.responses,
                                start.base_url)  # fmt: skip
        limits = Limits(start.budget, start.wall_clock_s, start.cost_limit_usd)
        setup = SessionSetup(task_of(start), levels, provider, limits, start.mode, start.base_url)
    log = reopen(folder, point, provider, writer)
    return LiveSession(setup, folder, log, state, effective(load_session(folder)[0]), start)
