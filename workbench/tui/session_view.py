"""The panes a session shows, live or replayed: transcript, task, guidance, editor and timing panel."""

from __future__ import annotations

from functools import cached_property

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Markdown, TabbedContent, TabPane, TextArea

from workbench.guidance import guidance_markdown, load_guidance
from workbench.ladder_report import ladder_markdown, recorded_run
from workbench.session.events import Event, SessionStart
from workbench.session.history import SessionState
from workbench.suite import SuiteRun
from workbench.tasks import Task, TaskFormatError, load_task, project_root
from workbench.tui.ladder_layout import fit_tables
from workbench.tui.widgets.timing import TimingPanel
from workbench.tui.widgets.transcript import Transcript
from workbench.tui.widgets.transcript_search import SearchBar, find_hits

TABS = ("tab-transcript", "tab-task", "tab-guidance", "tab-ladder")  # number keys 1-4 pick them, in this order
# Keys every session screen has, listed last in each screen's BINDINGS: the footer shows keys in binding order and
# cuts the last on a narrow terminal, where a screen's own keys matter more. Number keys pick a tab wherever the
# focus is (but in a text field); the footer shows one entry for them.
VIEW_KEYS = [
    Binding("1", "show_tab(1)", "Tabs", key_display="1-4", tooltip="Tabs: 1 Transcript, 2 Task, 3 Guidance, 4 Ladder"),
    Binding("2", "show_tab(2)", "Task tab", show=False),
    Binding("3", "show_tab(3)", "Guidance tab", show=False),
    Binding("4", "show_tab(4)", "Ladder tab", show=False),
    Binding("m", "toggle_editor", "Wide editor", tooltip="Widen the editor to the whole session body, or back"),
    Binding("slash", "search", "Search", key_display="/", tooltip="Search the transcript"),
]
LADDER_MARGIN = 6  # the Markdown's padding and the scrollbar, in columns
NOT_GIVEN = "> **Not given to the agent.** This session is unguided; this is what a guided session would read.\n\n"


class SessionView(Screen[None]):
    """A session's panes; subclasses feed them from a live loop or from a saved log."""

    BINDINGS = [
        Binding("escape", "back", "Home"),
        Binding("g", "show_guidance", "Guidance", show=False),
    ]

    def __init__(self, start: SessionStart) -> None:
        super().__init__()
        self.start = start
        self.levels = set(start.levels)
        self.progress = SessionState()  # the session folded up to what the screen shows
        self._loaded_tabs: set[str | None] = set()
        self._guidance_revealed = False
        self._ladder_shows: object = None  # the eval the Ladder tab was last rendered for
        self._hits: list[Event] = []  # the transcript search's hits, in order
        self._hit = 0  # the current one's index

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="session-body"):
            with Vertical(id="left-pane"):
                yield from self.compose_top()
                with TabbedContent(id="tabs"):
                    with TabPane("Transcript", id="tab-transcript"):
                        yield Transcript(id="transcript")
                        yield SearchBar(id="search")
                    # Task and guidance are rendered when first shown: Markdown with code blocks
                    # costs a few hundred ms, which opening a session should not pay.
                    with TabPane("Task", id="tab-task"), VerticalScroll(classes="tab-scroll"):
                        yield Markdown("", id="task-md")
                    with TabPane("Guidance", id="tab-guidance"), VerticalScroll(classes="tab-scroll"):
                        yield Markdown("", id="guidance-md")
                    with TabPane("Ladder", id="tab-ladder"), VerticalScroll(classes="tab-scroll"):
                        yield Markdown("", id="ladder-md")
            with Vertical(id="right-pane"):
                # composed with its first text: loading it after mount would parse and lay it out twice
                yield TextArea.code_editor(self.initial_source(), language="python", read_only=True, id="editor")
                yield TimingPanel(id="timing")
        yield Footer()

    def compose_top(self) -> ComposeResult:
        yield from ()

    def initial_source(self) -> str:
        """solution.py as the screen first shows it."""
        return ""

    def on_mount(self) -> None:
        self.title = self.start.session_id

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def editor(self) -> TextArea:
        return self.query_one("#editor", TextArea)

    def state_label(self) -> str:
        return "replay"

    def refresh_timing(self) -> None:
        self.query_one(TimingPanel).show(self.progress, self.state_label())
        if "tab-ladder" in self._loaded_tabs and self.progress.last_eval is not self._ladder_shows:
            self._show_ladder()

    def show_solution(self, source: str) -> None:
        if self.editor.text != source:
            self.editor.load_text(source)

    def action_back(self) -> None:
        self.dismiss()

    def action_show_tab(self, number: int) -> None:
        """The n-th tab (1: Transcript); it is rendered on first showing, as a click on it would."""
        if 1 <= number <= len(TABS):
            self.query_one(TabbedContent).active = TABS[number - 1]

    def action_toggle_editor(self) -> None:
        """The editor over the whole session body (the transcript, tabs and timing hidden), or back."""
        body = self.query_one("#session-body")
        body.toggle_class("editor-max")
        self.notify("editor widened: m again to restore" if body.has_class("editor-max") else "editor restored")

    # -- search in the transcript ------------------------------------------------------------------
    def search_events(self) -> list[Event]:
        """The events a search looks through: here those the transcript shows (a replay searches every turn)."""
        return self.transcript.shown

    def reveal(self, event: Event) -> None:
        """Bring a hit into view."""
        self.transcript.log_widget.scroll_to_event(event)

    def action_search(self) -> None:
        self.query_one(TabbedContent).active = "tab-transcript"
        self.query_one(SearchBar).open()

    @on(Input.Changed, "#search-input")
    def _search_changed(self, event: Input.Changed) -> None:
        self._hits, self._hit = find_hits(self.search_events(), event.value), 0
        self._show_hit()

    @on(SearchBar.Step)
    def _search_step(self, message: SearchBar.Step) -> None:
        current = self.refresh_search()
        if self._hits:
            self._hit = (self._hit + message.delta) % len(self._hits) if current else 0
            self._show_hit()

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.query_one(SearchBar).close()  # its field emptied: no hits, no highlights
        self.transcript.log_widget.focus()

    def refresh_search(self) -> Event | None:
        """The hits again (a live session's new events can hold more), the current one kept; it is returned."""
        bar = self.query_one(SearchBar)
        current = self._hits[self._hit] if self._hits else None
        self._hits = find_hits(self.search_events(), bar.query_text)
        self._hit = next((i for i, event in enumerate(self._hits) if event is current), 0)
        bar.show_count(self._hit + 1 if self._hits else 0, len(self._hits))
        return current if self._hits and self._hits[self._hit] is current else None

    def _show_hit(self) -> None:
        bar = self.query_one(SearchBar)
        current = self._hits[self._hit] if self._hits else None
        self.transcript.log_widget.set_highlight(bar.query_text, current)
        if current is not None:
            self.reveal(current)
        bar.show_count(self._hit + 1 if current else 0, len(self._hits))

    def action_show_guidance(self) -> None:
        self._guidance_revealed = True
        self._loaded_tabs.add("tab-guidance")
        self.query_one("#guidance-md", Markdown).update(self._guidance_markdown(reveal=True))
        self.query_one(TabbedContent).active = "tab-guidance"

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane in self._loaded_tabs:
            return
        if pane == "tab-task":
            self.query_one("#task-md", Markdown).update(self._task_markdown())
        elif pane == "tab-guidance":
            self.query_one("#guidance-md", Markdown).update(self._guidance_markdown(reveal=self._guidance_revealed))
        elif pane == "tab-ladder":
            self._show_ladder()
        else:
            return
        self._loaded_tabs.add(pane)

    def _task_markdown(self) -> str:
        try:
            return load_task(self.start.task).file("task.md").read_text()
        except (TaskFormatError, OSError) as exc:
            return f"*The task cannot be loaded: {exc}*"

    def _guidance_markdown(self, reveal: bool) -> str:
        if not self.levels and not reveal:
            return "*This session is unguided: the agent was given no guidance.*\n\nPress **g** to read it anyway."
        try:
            path = load_task(self.start.task).guidance_path
            if path is None:
                return "*This task has no guidance.*"
            items = load_guidance(path)
        except (TaskFormatError, OSError) as exc:
            return f"*The guidance cannot be loaded: {exc}*"
        if self.levels:
            return guidance_markdown(items, self.levels)
        return NOT_GIVEN + guidance_markdown(items, {1, 2, 3})

    @cached_property
    def _ladder_inputs(self) -> tuple[Task | None, SuiteRun | None, str | None]:
        """The task and the recorded run the Ladder tab reads, once per screen (only the session's eval changes as
        the session moves), or None and why not."""
        try:
            task = load_task(self.start.task)
        except (TaskFormatError, OSError) as exc:
            return None, None, f"*The task cannot be loaded: {exc}*"
        return (task, *recorded_run(project_root()))

    def _show_ladder(self) -> None:
        """The task's design ladder from the recorded GPU run, beside this session's latest eval."""
        last = self.progress.last_eval
        self._ladder_shows = last
        task, run, why = self._ladder_inputs
        text = ladder_markdown(task, run, last.result if last else None, why) if task else str(why)
        # a table wider than the pane is stacked: Textual's Markdown would cut its figures (16… for 163.4)
        pane = self.query_one("#left-pane").size.width
        self.query_one("#ladder-md", Markdown).update(fit_tables(text, pane - LADDER_MARGIN))

    def on_resize(self, event: events.Resize) -> None:
        if "tab-ladder" in self._loaded_tabs:
            self.call_after_refresh(self._show_ladder)  # once the panes have their new widths
