"""The home screen: the tasks with the best correct speedups so far, and the saved sessions; those running (in this
app, or written by another process) shown live: turn, state, best, cost."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from workbench.session.log import LogError
from workbench.tasks import TaskFormatError, load_task, task_names
from workbench.tui.catalog import UNFINISHED, SessionSummary, best_speedups, find_sessions, session_logs
from workbench.tui.runs import Feed, FollowedRun, LiveRun
from workbench.tui.timeline import cost_text

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

LIVE_REFRESH_S = 0.5  # running sessions' rows are brought up to date this often
RESCAN_S = 2.0  # the sessions folder is looked at this often for sessions other processes start
TASKS_TITLE = "Tasks — best correct speedup so far, per condition"
COLUMNS = ("task", "condition", "model", "turns", "outcome", "best", "cost", "date", "session")


class HomeScreen(Screen[None]):
    BINDINGS = [
        Binding("o", "open_session", "Open session"),
        Binding("n", "new_session", "New session on task"),
        Binding("c", "mark", "Mark to compare"),
        Binding("C", "compare", "Compare marked"),
        Binding("r", "reload", "Reload"),
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("escape", "clear_filter", "Clear filter"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sessions: list[SessionSummary] = []  # the rows shown, in order (those the filter lets through)
        self.tasks: list[str] = []
        self.all_sessions: list[SessionSummary] = []
        self.titles: dict[str, str] = {}  # every task's title, by name
        self.filter_text = ""
        self._sessions_shown = ""  # how many sessions the filter shows, for the sessions' title
        self.marked: list[Path] = []  # at most two sessions, for compare
        self.live_rows: dict[str, Feed] = {}  # rows of running sessions (by folder) and what feeds them
        self._logs: set[Path] = set()  # the session logs the table was made from

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="home-body"):
            yield FilterInput(placeholder="filter tasks and sessions (enter: to the list, esc: clear)", id="filter")
            yield Static(TASKS_TITLE, id="tasks-title", classes="table-title")
            yield DataTable(id="tasks", cursor_type="row", zebra_stripes=True)
            yield Static("Sessions", id="sessions-title", classes="table-title")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "D2K Workbench"
        # the bests before the title: a long title would push them off a 120- or 80-column screen
        self.query_one("#tasks", DataTable).add_columns("task", "best correct speedup", "title")
        self.columns = dict(zip(COLUMNS, self.query_one("#sessions", DataTable).add_columns(*COLUMNS), strict=True))
        self.action_reload()
        self.query_one("#tasks", DataTable).focus()
        self.set_interval(LIVE_REFRESH_S, self._refresh_live)
        self.set_interval(RESCAN_S, self._rescan)

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        root = self._app().sessions_root
        self._logs = session_logs(root)
        self.all_sessions = find_sessions(root)
        self.titles = {}
        for name in task_names():
            try:
                self.titles[name] = load_task(name).title
            except TaskFormatError as exc:
                self.titles[name] = f"(cannot load: {exc})"
        self._fill()

    def _fill(self) -> None:
        """Both tables from what was last read, only the rows the filter lets through."""
        words = self.filter_text.lower()
        self.tasks = [name for name, title in self.titles.items() if words in f"{name} {title}".lower()]
        self.sessions = [s for s in self.all_sessions if words in _row_text(s).lower()]
        best = best_speedups(self.all_sessions)
        tasks = self.query_one("#tasks", DataTable)
        tasks.clear()
        for name in self.tasks:
            found = sorted((cond, value) for (task, cond), value in best.items() if task == name)
            tasks.add_row(name, "  ".join(f"{c} {v:.2f}x" for c, v in found) or "–", self.titles[name], key=name)
        sessions = self.query_one("#sessions", DataTable)
        sessions.clear()
        self.live_rows = {}
        for s in self.sessions:
            best_text = f"{s.best_speedup:.2f}x" if s.best_speedup else "–"
            sessions.add_row(s.task, s.condition, f"{s.provider}/{s.model}", str(s.turns), s.outcome, best_text,
                             s.cost, s.date, s.session_id, key=str(s.folder))  # fmt: skip
            feed = self._feed(s)
            if feed is not None:
                self.live_rows[str(s.folder)] = feed
        self._refresh_live()
        listed = {s.folder for s in self.all_sessions}
        self.marked = [folder for folder in self.marked if folder in listed]
        shown = f" · filter “{self.filter_text}”: {{}} of {{}}" if self.filter_text else ""
        self.query_one("#tasks-title", Static).update(TASKS_TITLE + shown.format(len(self.tasks), len(self.titles)))
        self._sessions_shown = shown.format(len(self.sessions), len(self.all_sessions))
        self._show_marked()

    # -- the filter ---------------------------------------------------------------------------------
    def action_filter(self) -> None:
        """/ opens the filter (or goes back to it): rows of both lists that contain what is typed, any case."""
        field = self.query_one("#filter", FilterInput)
        field.display = True
        field.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return bool(self.filter_text) or self.query_one("#filter").display
        return True

    def action_clear_filter(self) -> None:
        field = self.query_one("#filter", FilterInput)
        field.value = ""  # its Changed message shows every row again
        field.display = False
        self.query_one("#tasks", DataTable).focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()
        self._fill()
        self.refresh_bindings()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        tasks, sessions = self.query_one("#tasks", DataTable), self.query_one("#sessions", DataTable)
        (sessions if sessions.row_count and not tasks.row_count else tasks).focus()

    def _feed(self, summary: SessionSummary) -> Feed | None:
        """What runs the session now: this app's loop, or another process followed; None when nothing does."""
        app = self._app()
        run = app.runs.get(summary.folder.resolve())
        if run is not None:
            return None if run.ended else run
        return app.follow(summary.folder) if summary.outcome == UNFINISHED else None

    def _refresh_live(self) -> None:
        """The running sessions' rows as their sessions are now; a session that ended (or lost its writer) has its
        row read again from its log."""
        if self.app.screen is not self or not self.live_rows:
            return
        table = self.query_one("#sessions", DataTable)
        for key, feed in self.live_rows.items():
            if isinstance(feed, LiveRun) and feed.ended or isinstance(feed, FollowedRun) and feed.state_text() != (
                    "running elsewhere"):  # fmt: skip
                self.action_reload()
                return
            progress = feed.progress
            values = {"turns": str(progress.turn), "outcome": feed.state_text(),
                      "best": f"{progress.best_speedup:.2f}x" if progress.best_speedup else "–",
                      "cost": cost_text(progress)}  # fmt: skip
            for column, value in values.items():
                if table.get_cell(key, self.columns[column]) != value:
                    table.update_cell(key, self.columns[column], value)

    def _rescan(self) -> None:
        """Sessions started meanwhile by other processes are listed (the app's own are listed when they start)."""
        if self.app.screen is self and session_logs(self._app().sessions_root) != self._logs:
            self.action_reload()

    @on(DataTable.RowSelected, "#sessions")
    def action_open_session(self) -> None:
        table = self.query_one("#sessions", DataTable)
        if len(self.marked) == 2:
            self.action_compare()
        elif table.row_count:
            self._app().open_session(self.sessions[table.cursor_row].folder)

    def action_mark(self) -> None:
        """Mark the session under the cursor for compare, or unmark it; a third mark drops the oldest."""
        table = self.query_one("#sessions", DataTable)
        if not table.row_count:
            return
        folder = self.sessions[table.cursor_row].folder
        if folder in self.marked:
            self.marked.remove(folder)
        else:
            self.marked = [*self.marked[-1:], folder]
        self._show_marked()

    def action_compare(self) -> None:
        from workbench.tui.compare_screen import CompareScreen

        if len(self.marked) != 2:
            self.notify("mark two sessions with c to compare them", severity="warning")
            return
        try:
            screen = CompareScreen(*self.marked)
        except (LogError, OSError, KeyError) as exc:
            self.notify(f"cannot compare: {exc}", severity="error")
            return
        self.app.push_screen(screen)

    def _show_marked(self) -> None:
        table = self.query_one("#sessions", DataTable)
        for s in self.sessions:  # a marked row carries a check mark in its first cell
            task = Text(f"✓ {s.task}", style="bold yellow") if s.folder in self.marked else s.task
            if str(table.get_cell(str(s.folder), self.columns["task"])) != str(task):
                table.update_cell(str(s.folder), self.columns["task"], task)
        title = self.query_one("#sessions-title", Static)
        names = " ↔ ".join(folder.name for folder in self.marked)
        hint = " (C or enter: compare)" if len(self.marked) == 2 else " (mark one more with c)"
        title.update((f"Sessions · marked: {names}{hint}" if self.marked else "Sessions") + self._sessions_shown)
        title.set_class(bool(self.marked), "marked")

    @on(DataTable.RowSelected, "#tasks")
    def action_new_session(self) -> None:
        table = self.query_one("#tasks", DataTable)
        if table.row_count:
            self._app().new_session_dialog(self.tasks[table.cursor_row])

    def _app(self) -> WorkbenchApp:
        # the app that pushed this screen; named for the type checker only (the app imports this module)
        return cast("WorkbenchApp", self.app)


class FilterInput(Input):
    """The home screen's filter: esc clears it (and hides it) instead of reaching the screen."""

    BINDINGS = [Binding("escape", "screen.clear_filter", "Clear filter")]


def _row_text(s: SessionSummary) -> str:
    """What the filter looks in: the session's row as shown."""
    return " ".join((s.task, s.condition, f"{s.provider}/{s.model}", s.outcome, s.cost, s.date, s.session_id))
