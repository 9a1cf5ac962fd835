"""The app's calls into the Session service: a new session on a task, an unfinished one resumed, a saved one
branched at a turn. What the service refuses (no key, no script, a busy or ended session, a turn out of range)
comes back as a LaunchError, one line for a notification; the live screen then runs what these return.

The app's demo scripts (`script_dirs`) are where a scripted session's script is looked for when none is recorded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.session.log import LogError
from workbench.session.service import Session
from workbench.session.specs import ProviderSpec, SessionUsageError, make_limits
from workbench.session.store import SessionStoreError
from workbench.session.writer import SessionBusy
from workbench.tasks import TaskFormatError

# busy: another process runs it, and resetting its workspace would harm that run; LogError: no log, or it ended
_REFUSALS = (SessionUsageError, SessionBusy, LogError, SessionStoreError, TaskFormatError)


class LaunchError(ValueError):
    """A session the app cannot start: no script, no key, a task with no guidance, a busy session. One line."""


@contextlib.contextmanager
def _refused_as_launch_error() -> Iterator[None]:
    try:
        yield
    except _REFUSALS as exc:
        raise LaunchError(str(exc)) from None


def new_session(task: str, levels: set[int], provider: ProviderSpec | Provider, mode: str | None, root: Path,
                budget: int = 350) -> Session:  # fmt: skip
    with _refused_as_launch_error():
        return Session.new(task, levels, provider, make_limits(budget), mode, root)


def resume_session(folder: Path, script_dirs: Iterable[Path]) -> Session:
    """Reopen an unfinished or interrupted session after its last complete turn, with its provider."""
    with _refused_as_launch_error():
        return Session.resume(folder, ProviderSpec(script_dirs=tuple(script_dirs)), purpose="the workbench app")


def branch_session(parent: Path, turn: int, root: Path, script_dirs: Iterable[Path]) -> Session:
    """A new session under `root` with `parent`'s first `turn` turns, its provider ready to go on."""
    with _refused_as_launch_error():
        return Session.branch(parent, turn, provider=ProviderSpec(script_dirs=tuple(script_dirs)), root=root)
