"""The app's calls into the Session service: a new session on a task, an unfinished one resumed, a saved one
branched at a turn, a session a person drove handed to a model. What the service refuses (no key, no script, a busy
or ended session, a turn out of range) comes back as a LaunchError, one line for a notification; the live screen
then runs what these return.

The app's demo scripts (`script_dirs`) are where a scripted session's script is looked for when none is recorded.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Iterable, Iterator
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.session.events import Files, SessionResumed
from workbench.session.log import LogError
from workbench.session.service import HUMAN, PersonAtKeyboard, ReadOnlySession, Session
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
    """Reopen an unfinished or interrupted session after its last complete turn, with its provider (a person's
    session: the person again)."""
    with _refused_as_launch_error():
        return Session.resume(folder, _own_provider(folder, script_dirs), purpose="the workbench app")


def branch_session(parent: Path, turn: int, root: Path, script_dirs: Iterable[Path]) -> Session:
    """A new session under `root` with `parent`'s first `turn` turns, its provider ready to go on."""
    with _refused_as_launch_error():
        return Session.branch(parent, turn, provider=_own_provider(parent, script_dirs), root=root)


def _own_provider(folder: Path, script_dirs: Iterable[Path]) -> ProviderSpec | Provider:
    """Who goes on with a session: whoever drove it last (a person's session handed to a model is the model's)."""
    record = Session.open(folder)
    resumed = [e for e in record.events if isinstance(e, SessionResumed)]
    name, model = (resumed[-1].provider, resumed[-1].model) if resumed else (record.start.provider, None)
    if name == HUMAN:
        return PersonAtKeyboard()  # the app has a person at the keyboard; a headless resume does not
    if name != record.start.provider:  # handed over: the model it was handed to (its script found again)
        return ProviderSpec(name, model, script_dirs=tuple(script_dirs))
    return ProviderSpec(script_dirs=tuple(script_dirs))


def check_provider(spec: ProviderSpec, task: str, levels: set[int]) -> None:
    """Make the provider once, to say what is missing (its key, a script) before anything is changed."""
    with _refused_as_launch_error():
        spec.make(task, levels)


def hand_over(folder: Path, spec: ProviderSpec) -> tuple[Session, str]:
    """A session a person drove, ended (resumable), resumed with a model; and the note that tells the model what
    the person did, delivered with its first request."""
    with _refused_as_launch_error():
        note = hand_over_note(Session.open(folder))
        return Session.resume(folder, spec, purpose="the workbench app"), note


def hand_over_note(record: ReadOnlySession) -> str:
    """What the model is told of the person's work: solution.py against the task's template, and their evals."""
    template = next((e.changed.get("solution.py", "") for e in record.effective if isinstance(e, Files)), "")
    state = record.state
    diff = "".join(difflib.unified_diff(template.splitlines(True), state.solution.splitlines(True),
                                        "solution.py (template)", "solution.py (now)"))  # fmt: skip
    text = "A person worked on this task before handing it to you"
    text += f"; solution.py is as they left it:\n```diff\n{diff}```" if diff else " and left solution.py as it was."
    if state.last_eval is not None:
        verdict = "correct" if state.last_eval.correct else "not correct"
        text += f"\nTheir last evaluation found it {verdict}."
    return text
