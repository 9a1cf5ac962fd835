"""Sessions the app runs or follows apart from any screen: a session goes on when its screen is left, and a screen
opened on it again picks up where it is.

A `LiveRun` is a session this app writes: its loop runs on its own thread, its events are kept and folded here, and
the screen that shows it (its viewer, at most one) gets them as messages. A `FollowedRun` is a session another
process writes, read as its log grows (`Session.watch` on a thread of its own), never locked, never written. Both
hand a viewer, under one lock, everything so far and then every later event, so that none is lost or shown twice.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from pathlib import Path

from textual.message import Message
from textual.message_pump import MessagePump

from workbench.agent.conversation import Delta
from workbench.session.events import Event, LogError, SessionEnd, SessionResumed
from workbench.session.history import SessionState, effective, rebuild
from workbench.session.loop import AgentLoop, LoopCallbacks, LoopState
from workbench.session.service import HUMAN, Session
from workbench.session.writer import describe, holder
from workbench.tui.timeline import ended_with

FOLLOW_POLL_S = 0.25  # how often a followed log is looked at for new lines


class FeedEvent(Message):
    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class FeedDelta(Message):
    def __init__(self, delta: Delta) -> None:
        super().__init__()
        self.delta = delta


class FeedState(Message):
    """The loop's state changed (a live run), or the writer of a followed one did."""


class FeedReset(Message):
    """What was shown is no longer the session's history (a resume discarded a turn cut short): show it again."""


class Feed(ABC):
    """Events kept for whoever views them, and the session's counters (`progress`) for the home screen."""

    def __init__(self, folder: Path, events: list[Event]) -> None:
        self.folder = folder
        self.events = events
        self._lock = threading.Lock()
        self._viewer: MessagePump | None = None

    def attach(self, viewer: MessagePump) -> list[Event]:
        """Every event so far; later ones come to `viewer` as FeedEvent messages (a second viewer replaces the
        first)."""
        with self._lock:
            self._viewer = viewer
            return list(self.events)

    def detach(self, viewer: MessagePump) -> None:
        with self._lock:
            if self._viewer is viewer:
                self._viewer = None

    def _add(self, event: Event) -> None:  # any thread
        with self._lock:
            self.events.append(event)
            self._fold(event)
            self._tell(FeedEvent(event))

    @abstractmethod
    def _fold(self, event: Event) -> None:
        """Count the event in `progress` (under the lock, as each event is kept)."""

    @property
    @abstractmethod
    def progress(self) -> SessionState:
        """The session's counters (turn, best, cost) as they are now."""

    def _tell(self, message: Message) -> None:
        viewer = self._viewer
        if viewer is not None:
            viewer.post_message(message)  # thread-safe and never waits

    @property
    def ended(self) -> bool:
        return ended_with(self.events) is not None

    def state_text(self) -> str:
        """What the session is doing, in a word or two (the home screen's outcome column, the timing panel)."""
        return "ended" if self.ended else "running"


class LiveRun(Feed):
    """A session this app writes, running whether or not a screen shows it; its log is closed once it ends."""

    def __init__(self, session: Session) -> None:
        super().__init__(session.folder, list(session.history))
        self.session = session
        self.human = session.setup.provider.name == HUMAN  # a person drives it: no model
        self.loop: AgentLoop = session.attach(LoopCallbacks(self._add, self._delta, self._state))
        self.closed = threading.Event()

    @property
    def progress(self) -> SessionState:
        """The loop's own state: its counters are kept as it goes, so nothing is folded twice on the UI's side."""
        return self.loop.state

    def _fold(self, event: Event) -> None:
        pass  # the loop counted it already, in its own state

    def start(self, paused: bool = False) -> None:
        if self.human:
            self.loop.take_over()  # the person has the workspace from the start; the loop only waits
        self.loop.start(paused=paused or self.human)

    def stop(self) -> None:
        """End the session (interrupted: resumable) once what is in flight is cancelled; the log closes after."""
        if self.loop.status != LoopState.FINISHED:
            self.loop.stop()

    def disk_solution(self) -> str:
        path = self.loop.work / "solution.py"
        return path.read_text() if path.exists() else ""

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self.closed.wait(timeout)

    @property
    def ended(self) -> bool:
        return self.loop.status == LoopState.FINISHED

    def state_text(self) -> str:
        status = self.loop.status
        if self.human and status == LoopState.TAKEN_OVER:
            return "person driving"
        return status.value

    def _delta(self, delta: Delta) -> None:
        self._tell(FeedDelta(delta))

    def _state(self, state: LoopState) -> None:  # the loop's thread
        self._tell(FeedState())
        if state == LoopState.FINISHED:
            threading.Thread(target=self._close, name="session-close", daemon=True).start()

    def _close(self) -> None:
        self.loop.wait()  # the worker's last lines run after it reports finished
        self.session.close()
        self.closed.set()


class FollowedRun(Feed):
    """A session another process writes, followed until it ends or this app stops following it."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder, [])
        self._progress = SessionState()
        self.error: str | None = None  # why the log could not be followed further
        # not until its first end: a session resumed after it (an interrupted one, a person's) goes on in the log
        self._watch = Session.watch(folder, FOLLOW_POLL_S)
        self._thread = threading.Thread(target=self._follow, name="session-follow", daemon=True)
        self._thread.start()

    @property
    def progress(self) -> SessionState:
        return self._progress

    def _fold(self, event: Event) -> None:
        self._progress.apply(event)

    @classmethod
    def if_written_elsewhere(cls, folder: Path) -> FollowedRun | None:
        """Followed, when another process holds its writer lock now; else None."""
        return cls(folder) if holder(folder) is not None else None

    def stop(self) -> None:
        self._watch.stop()

    def writer(self) -> str | None:
        """Who writes the session now, in words, or None when nobody does (its writer is gone or it ended)."""
        note = holder(self.folder)
        return None if note is None else describe(note)

    def state_text(self) -> str:
        if self.ended:
            return "ended"
        return "running elsewhere" if self.writer() is not None else "writer gone"

    def _follow(self) -> None:
        try:
            for event in self._watch:
                self._add(event)
                if isinstance(event, SessionResumed) and event.discarded:
                    self._refold()  # a turn a kill cut short is gone from the session: show it without
                if isinstance(event, SessionEnd):
                    self._tell(FeedState())
                    if holder(self.folder) is None:
                        return  # ended, and nothing writes it any more
        except (LogError, OSError) as exc:  # the follower's boundary: the screen says why it stopped
            self.error = str(exc)
            self._tell(FeedState())

    def _refold(self) -> None:
        with self._lock:
            self.events = effective(self.events)
            self._progress = rebuild(self.events)
            self._tell(FeedReset())
