"""The Session service: the one way the command line, the app, the bench and the judge make, open, resume,
branch, run and follow a session, a call each.

- `Session.new(task, levels, provider, limits, mode, root)`: a new folder with its workspace and log;
- `Session.resume(folder, provider?)`: the writer lock, the log repaired, the workspace put back;
- `Session.branch(folder, turn, levels?, provider?, root?)`: a new session with the parent's first `turn` turns;
- `session.run(callbacks)` (or `start`): the loop on its thread with the front end's callbacks;
- `Session.open(folder)`: a read-only record (replay, compare, the app's catalogue, reports), never locked;
- `Session.watch(folder)`: the events of a session another process writes, as they come, never locked;
- `Session.claim(folder, purpose)`: the lock and the log read under it, to append to a session that ended.

A session a person drives (human mode) is made with `PersonAtKeyboard` as its provider: there is no model, its loop
waits taken over, and it is logged like any other. It is handed to a model by resuming or branching it with a
provider; resumed or branched with none named, it stays the person's only where the front end says so (`provider=
PersonAtKeyboard()`): a headless resume has no one at the keyboard.

What it owns is said here once: the limits and the provider (`specs.py`), the workspace and the writer lock
(`store.py`'s primitives, which it composes). A new session's provider is made before its folder is, so a
missing key or script leaves nothing behind; a resume takes the lock before it reads where to go on from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from workbench.agent.provider import Provider, ProviderError
from workbench.session.events import Event, ModelResponse, SessionStart
from workbench.session.headless import run_headless
from workbench.session.history import SessionState, complete_prefix, complete_turns, effective, rebuild
from workbench.session.log import SessionLog, read_log
from workbench.session.loop import AgentLoop, Limits, LoopCallbacks
from workbench.session.specs import ProviderSpec, SessionUsageError, raised_limits, recorded_limits
from workbench.session.store import (
    HUMAN,
    SessionSetup,
    build_loop,
    claim_resume,
    create_session,
    detect_session_mode,
    load_session,
    reopen,
    repair_log,
    sessions_root,
    task_of,
)
from workbench.session.watch import POLL_S, SessionWatch
from workbench.session.writer import Writer
from workbench.tasks import Task, load_task


class PersonAtKeyboard:
    """The provider of a session a person drives: no model. Its loop is started taken over and never asks for a
    turn; were it asked, the session ends on a one-line error instead of waiting for a model that is not there."""

    name = HUMAN
    model = "person"

    def complete(self, request: object, on_delta: object, cancel: object, on_retry: object = None) -> Any:
        raise ProviderError("this session is driven by a person: hand it to a model by resuming it with a provider")


def _provider(start: SessionStart, given: ProviderSpec | Provider | None, levels: Iterable[int],
              played: int = 0) -> tuple[Provider, str | None]:  # fmt: skip
    """The provider a resume or branch goes on with, and its server: one given ready-made, else the recorded one
    with what the caller names instead. A person's session named by no one is refused: nothing would drive it."""
    if given is not None and not isinstance(given, ProviderSpec):
        return given, getattr(given, "base_url", None)
    spec = ProviderSpec.recorded(start).overridden_by(given)
    if spec.name == HUMAN:
        raise SessionUsageError("this session was driven by a person: name a provider to hand it to a model "
                                "(or open it in the app to go on driving it)")  # fmt: skip
    return spec.make(start.task, levels, played), spec.base_url


@dataclass(frozen=True)
class ReadOnlySession:
    """A session as its log holds it, read without the writer lock (a run may be appending as it is read)."""

    folder: Path
    start: SessionStart
    events: list[Event] = field(repr=False)  # every complete event as written, the start first
    torn: bool  # a torn last line (a kill mid-write) was left out

    @cached_property
    def effective(self) -> list[Event]:
        """The events without those a resume discarded (a turn a kill cut short)."""
        return effective(self.events)

    @cached_property
    def state(self) -> SessionState:
        """The whole session folded: conversation, workspace, counters, end."""
        return rebuild(self.effective)

    @property
    def turns(self) -> int:
        """Complete turns."""
        return complete_turns(self.effective)


class HeldSession:
    """A session's writer lock, held by this process, and its log as read under it: nothing else can append between
    the reading and this process's appending. Released on leaving the `with` block."""

    def __init__(self, writer: Writer, record: ReadOnlySession) -> None:
        self.record = record
        self._writer = writer
        self._log: SessionLog | None = None

    def append(self, event: Event) -> Event:
        """Append after the last event read (a torn last line is cut first, so that it cannot swallow this one)."""
        if self._log is None:
            path = self.record.folder / "events.jsonl"
            repair_log(path)
            self._log = SessionLog(path, next_seq=self.record.events[-1].seq + 1, writer=self._writer)
        return self._log.append(event)

    def release(self) -> None:
        if self._log is not None:
            self._log.close()  # gives up the writer lock it was handed
        self._writer.release()

    def __enter__(self) -> HeldSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Session:
    """A session this process writes: its folder, its log open for appending (the writer lock held until close()),
    the set-up its loop runs with and the state it starts from. Made by new, resume and branch."""

    def __init__(self, setup: SessionSetup, folder: Path, log: SessionLog, state: SessionState | None = None,
                 torn: bool = False, resumed_from: int | None = None) -> None:  # fmt: skip
        events = read_log(log.path).events
        self.setup, self.folder, self.log = setup, folder, log
        self.history = effective(events)  # what the log held when this process took the session
        self.state = state if state is not None else rebuild(events)  # what the loop starts from
        self.torn = torn  # a resume dropped a torn last line
        self.resumed_from = resumed_from  # the turn a resume goes on after; None for a new session or a branch
        self.loop: AgentLoop | None = None

    @property
    def start_event(self) -> SessionStart:
        first = self.history[0]
        assert isinstance(first, SessionStart)  # read_log checks the first line
        return first

    # -- making one ------------------------------------------------------------------------------------------
    @classmethod
    def new(cls, task: str | Task, levels: Iterable[int], provider: ProviderSpec | Provider, limits: Limits,
            mode: str | None = None, root: Path | None = None) -> Session:  # fmt: skip
        """A new session on `task` under `root` (None: sessions_root()), its evals in `mode` (None: cuda where a GPU
        is). `provider` is a spec, or a provider already made (a test's or a benchmark's turns)."""
        chosen = set(levels)
        loaded = task if isinstance(task, Task) else load_task(task)
        _check_guidance(loaded, chosen)
        if isinstance(provider, ProviderSpec):
            made, base_url = provider.make(loaded.name, chosen), provider.base_url
        else:  # a provider made by the caller: its server, where it has one, is recorded all the same
            made, base_url = provider, getattr(provider, "base_url", None)
        setup = SessionSetup(loaded, chosen, made, limits, mode or detect_session_mode(), base_url)
        folder, log = create_session(setup, sessions_root(root))
        return cls(setup, folder, log)

    @classmethod
    def resume(cls, folder: Path, provider: ProviderSpec | Provider | None = None, by: str | None = None,
               purpose: str = "resume", tasks_root: Path | None = None,
               raised: dict[str, Any] | None = None) -> Session:  # fmt: skip
        """Go on after the last complete turn of a killed or interrupted session: with its recorded provider and
        limits unless `provider` names others (or is one, made: a person's, PersonAtKeyboard). SessionBusy (one line
        naming the holder) while another writer holds it, NotResumable once it ended for good; either way nothing is
        changed. `by`: what resumes it, where not a person (the bench); `purpose`: what the lock's note says holds
        it. `raised`: limits this resume raises (budget, wall_clock_s, cost_limit_usd), which a session that ran
        into its turns or cost limit needs to go on."""
        writer, point = claim_resume(folder, purpose, raised)
        with writer.released_on_error():
            start, state = point.start, point.state
            made, base_url = _provider(start, provider, start.levels, state.responses)
            limits = raised_limits(point.limits, raised or {})
            setup = SessionSetup(task_of(start, tasks_root), set(start.levels), made, limits, start.mode, base_url)
        log = reopen(folder, point, made, writer, by, raised)
        return cls(setup, folder, log, state, torn=point.torn, resumed_from=state.turn)

    @classmethod
    def branch(cls, folder: Path, turn: int, levels: Iterable[int] | None = None,
               provider: ProviderSpec | Provider | None = None, root: Path | None = None) -> Session:  # fmt: skip
        """A new session under `root` (None: beside its parent) whose history is `folder`'s first `turn` complete
        turns, with the parent's guidance, provider and limits unless `levels` or `provider` name others; a
        scripted provider goes on after the responses the branch inherits. The parent is only read."""
        parent = cls.open(folder)
        if not 0 <= turn <= parent.turns:
            raise SessionUsageError(f"{folder.name} has {parent.turns} complete turns; "
                                    f"cannot branch at turn {turn} (0..{parent.turns})")  # fmt: skip
        history = complete_prefix(parent.effective, up_to_turn=turn)
        played = sum(isinstance(e, ModelResponse) for e in history)
        start = parent.start
        task = task_of(start)
        chosen = set(start.levels if levels is None else levels)
        _check_guidance(task, chosen)
        made, base_url = _provider(start, provider, chosen, played)
        setup = SessionSetup(task, chosen, made, recorded_limits(start, history), start.mode, base_url)
        origin = {"session": str(folder), "turn": turn}
        branched, log = create_session(setup, root or folder.resolve().parent, history, parent=origin)
        return cls(setup, branched, log)

    # -- reading one -----------------------------------------------------------------------------------------
    @staticmethod
    def open(folder: Path) -> ReadOnlySession:
        """The session as its log holds it now; never takes the lock, so it works while another process runs it.
        LogError when there is no log or it cannot be read."""
        events, start, torn = load_session(folder)
        return ReadOnlySession(folder, start, events, torn)

    @staticmethod
    def watch(folder: Path, poll_s: float = POLL_S, until_end: bool = False) -> SessionWatch:
        """Follow a session another process writes: iterate for its events as their lines are completed, stop()
        from any thread to end (or `until_end`: at its session_end). Never takes the lock."""
        return SessionWatch(folder, poll_s, until_end)

    @staticmethod
    def claim(folder: Path, purpose: str) -> HeldSession:
        """The writer lock of a session, then its log read under it (the judge appends its judgement so). LogError
        when there is no session here (no lock file is made then), SessionBusy while another writer holds it."""
        path = folder / "events.jsonl"
        if not path.exists():
            read_log(path)  # raises its own error: no session here
        writer = Writer.claim(folder, purpose)
        with writer.released_on_error():
            return HeldSession(writer, Session.open(folder))

    # -- running it ------------------------------------------------------------------------------------------
    def attach(self, callbacks: LoopCallbacks | None = None) -> AgentLoop:
        """The session's loop with the front end's callbacks, not started yet (the app starts it once its screen
        is up). Made once: a session has one loop."""
        if self.loop is not None:
            raise RuntimeError(f"{self.folder.name} already has its loop")
        self.loop = build_loop(self.setup, self.folder, self.log, self.state, callbacks)
        return self.loop

    def start(self, callbacks: LoopCallbacks | None = None, paused: bool = False) -> AgentLoop:
        """The loop started on its own thread (paused: waiting for run() or step()); the caller waits for it and
        then closes the session."""
        loop = self.attach(callbacks)
        loop.start(paused=paused)
        return loop

    def run(self, callbacks: LoopCallbacks | None = None, on_signals: bool = False) -> str:
        """Run the session to its end and close its log: the end reason. `on_signals` (a headless run's main
        thread): SIGINT and SIGTERM end it cleanly, as interrupted."""
        loop = self.attach(callbacks)
        try:
            if on_signals:
                return run_headless(loop)
            loop.start()
            return loop.wait() or "error"  # waits with no timeout: only a worker gone without an end has none
        finally:
            self.close()

    def close(self) -> None:
        """Close the log and give up the writer lock (after the loop ended: a loop still running would fail to
        log). Closing twice is harmless."""
        self.log.close()


def _check_guidance(task: Task, levels: set[int]) -> None:
    if levels and task.guidance_path is None:
        raise SessionUsageError(f"task {task.name} has no guidance")
