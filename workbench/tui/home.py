"""The home screen: the tasks with the best correct speedups so far, and the saved sessions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from workbench.tasks import TaskFormatError, load_task, task_names
from workbench.tui.catalog import SessionSummary, best_speedups, find_sessions

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


class HomeScreen(Screen[None]):
    BINDINGS = [
        Binding("o", "open_session", "Open session"),
        Binding("n", "new_session", "New session on task"),
        Binding("r", "reload", "Reload"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sessions: list[SessionSummary] = []
        self.tasks: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="home-body"):
            yield Static("Tasks — best correct speedup so far, per condition", classes="table-title")
            yield DataTable(id="tasks", cursor_type="row", zebra_stripes=True)
            yield Static("Sessions", classes="table-title")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "D2K Workbench"
        self.query_one("#tasks", DataTable).add_columns("task", "title", "best correct speedup")
        self.query_one("#sessions", DataTable).add_columns(
            "task", "condition", "model", "turns", "outcome", "best", "date", "session"
        )
        self.action_reload()
        self.query_one("#tasks", DataTable).focus()

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        self.sessions = find_sessions(self._app().sessions_root)
        self.tasks = task_names()
        best = best_speedups(self.sessions)
        tasks = self.query_one("#tasks", DataTable)
        tasks.clear()
        for name in self.tasks:
            try:
                title = load_task(name).title
            except TaskFormatError as exc:
                title = f"(cannot load: {exc})"
            found = sorted((cond, value) for (task, cond), value in best.items() if task == name)
            tasks.add_row(name, title, "  ".join(f"{c} {v:.2f}x" for c, v in found) or "–", key=name)
        sessions = self.query_one("#sessions", DataTable)
        sessions.clear()
        for s in self.sessions:
            best_text = f"{s.best_speedup:.2f}x" if s.best_speedup else "–"
            sessions.add_row(s.task, s.condition, f"{s.provider}/{s.model}", str(s.turns), s.outcome, best_text,
                             s.date, s.session_id, key=str(s.folder))  # fmt: skip

    @on(DataTable.RowSelected, "#sessions")
    def action_open_session(self) -> None:
        table = self.query_one("#sessions", DataTable)
        if table.row_count:
            self._app().open_session(self.sessions[table.cursor_row].folder)

    @on(DataTable.RowSelected, "#tasks")
    def action_new_session(self) -> None:
        table = self.query_one("#tasks", DataTable)
        if table.row_count:
            self._app().new_session_dialog(self.tasks[table.cursor_row])

    def _app(self) -> WorkbenchApp:
        from workbench.tui.app import WorkbenchApp

        app = self.app
        assert isinstance(app, WorkbenchApp)
        return app
