"""A session another process writes (`workbench run`, a bench, another app), followed live and read-only: its turns
appear as they are logged. Once its writer is gone without ending it (killed), `r` resumes it here."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.binding import Binding

from workbench.session.events import SessionStart
from workbench.session.service import Session
from workbench.tui.feed_screen import FeedScreen
from workbench.tui.runs import FollowedRun
from workbench.tui.session_view import VIEW_KEYS

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

WRITER_CHECK_S = 1.0  # how often the writer's lock is looked at


class FollowScreen(FeedScreen):
    BINDINGS = [
        Binding("f", "toggle_folds", "Fold/unfold"),
        Binding("r", "resume", "Resume here"),
        *VIEW_KEYS,
    ]

    def __init__(self, follow: FollowedRun) -> None:
        first = follow.events[0] if follow.events else None  # read already, when the home screen followed it
        start = first if isinstance(first, SessionStart) else Session.open(follow.folder).start
        super().__init__(follow, start)
        self.follow = follow
        self.state = follow.state_text()

    def on_mount(self) -> None:
        super().on_mount()
        writer = self.follow.writer()
        self.sub_title = f"following · {self.follow.folder}" + (f" · written by {writer}" if writer else "")
        self.set_interval(WRITER_CHECK_S, self._check_writer)

    def state_label(self) -> str:
        return f"{self.state} (read-only)" if self.state == "running elsewhere" else self.state

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":
            return self.state == "writer gone"  # offered only when nothing else writes it
        return True

    def _check_writer(self) -> None:
        state = self.follow.state_text()
        if state == self.state:
            return
        self.state = state
        if state == "writer gone":
            self.notify("its writer is gone without ending it: r resumes it here")
        self.refresh_timing()
        self.refresh_bindings()

    def state_changed(self) -> None:
        self._check_writer()
        if self.follow.error:
            self.notify(f"stopped following: {self.follow.error}", severity="error")

    def action_toggle_folds(self) -> None:
        self.transcript.log_widget.action_toggle_folds()

    def action_resume(self) -> None:
        if self.state == "writer gone":
            cast("WorkbenchApp", self.app).resume(self.follow.folder)
