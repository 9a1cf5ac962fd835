"""Replay: a saved session read-only, with a turn cursor that the transcript, editor and timing follow."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from workbench.session.events import Event
from workbench.session.history import rebuild
from workbench.session.log import LogError
from workbench.session.service import Session
from workbench.tui.launch import LaunchError, branch_session
from workbench.tui.session_view import VIEW_KEYS, SessionView
from workbench.tui.timeline import last_turn, up_to_turn
from workbench.tui.widgets.timing import TimingPanel
from workbench.tui.widgets.transcript_search import SearchInput

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


class ReplayScreen(SessionView):
    BINDINGS = [
        # priority: the focused log or editor would otherwise take these keys to scroll
        Binding("left,left_square_bracket", "move(-1)", "Turn -1", key_display="←/[", priority=True),
        Binding("right,right_square_bracket", "move(1)", "Turn +1", key_display="→/]", priority=True),
        Binding("home", "jump(0)", "First", priority=True),
        Binding("end", "jump(-1)", "Last", priority=True),
        Binding("r", "resume", "Resume live"),
        Binding("b", "branch", "Branch here"),
        *VIEW_KEYS,
    ]

    def __init__(self, folder: Path) -> None:
        self.record = Session.open(folder)
        super().__init__(self.record.start)
        self.folder, self.torn = folder, self.record.torn
        self.events = self.record.effective
        self.last = last_turn(self.events)
        self.cursor = self.last
        self.end_reason = self.record.state.end_reason  # of the whole session, not of the cursor's turn

    def compose_top(self) -> ComposeResult:
        yield Static(self._cursor_text(), id="cursor-bar")

    def initial_source(self) -> str:
        return rebuild(up_to_turn(self.events, self.cursor)).solution

    def _cursor_text(self) -> str:
        end = f"session ended: {self.end_reason}" if self.end_reason else "session not ended (r: resume live)"
        torn = " · a torn last line was dropped" if self.torn else ""
        return f"turn {self.cursor}/{self.last} · {end}{torn}"

    def on_mount(self) -> None:
        super().on_mount()
        self.sub_title = "replay"
        self.show_turn(self.cursor)
        self.transcript.log_widget.focus()

    def show_turn(self, turn: int) -> None:
        self.cursor = max(0, min(turn, self.last))
        shown = up_to_turn(self.events, self.cursor)
        self.progress = rebuild(shown)
        self.transcript.clear()
        self.transcript.add_events(shown)
        self.show_solution(self.progress.solution)
        timing = self.query_one(TimingPanel)
        timing.history, timing.cursor = self.events, self.cursor
        self.refresh_timing()
        self.query_one("#cursor-bar", Static).update(self._cursor_text())

    def action_move(self, delta: int) -> None:
        self.show_turn(self.cursor + delta)

    def action_jump(self, turn: int) -> None:
        self.show_turn(self.last if turn < 0 else turn)

    def search_events(self) -> list[Event]:
        return self.events  # every turn, not only those up to the cursor

    def reveal(self, event: Event) -> None:
        """A hit in another turn moves the cursor to that turn first."""
        if event.turn != self.cursor:
            self.show_turn(event.turn)
        super().reveal(event)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("move", "jump") and isinstance(self.focused, SearchInput):
            return False  # the arrows, home and end move in the search field while it has the focus
        if action == "resume":
            return self.end_reason in (None, "interrupted")  # offered only where a resume can go on
        return True

    def action_resume(self) -> None:
        self._app().resume(self.folder)

    def action_branch(self) -> None:
        """A new live session (paused) with this session's turns up to the cursor's (the last complete
        one when the cursor is on a turn cut short)."""
        app = self._app()
        turn = min(self.cursor, self.record.turns)
        try:
            live = branch_session(self.folder, turn, app.sessions_root, app.script_dirs)
        except (LaunchError, LogError, ValueError, OSError) as exc:
            self.notify(f"cannot branch: {exc}", severity="error")
            return
        app.go_live(live, paused=True)
        self.notify(f"branched at turn {turn}: {live.folder.name} (space: run)")

    def _app(self) -> WorkbenchApp:
        # the app that pushed this screen; named for the type checker only (the app imports this module)
        return cast("WorkbenchApp", self.app)
