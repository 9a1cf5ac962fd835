"""Compare: two sessions side by side on one turn cursor: transcripts, speedup curves, solution diff, summary.

Sessions that have not ended are read again every second, so a live session can be watched against
another (or against itself from a second app).
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from workbench.session.log import LogError
from workbench.tui.comparison import SUMMARY_ROWS, Side, solution_diff
from workbench.tui.timeline import up_to_turn
from workbench.tui.widgets.plot import SpeedupPlot
from workbench.tui.widgets.transcript import Transcript

RELOAD_S = 1.0


class CompareScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Home"),
        # priority: the focused transcript would otherwise take these keys to scroll
        Binding("left,left_square_bracket", "move(-1)", "Turn -1", key_display="←/[", priority=True),
        Binding("right,right_square_bracket", "move(1)", "Turn +1", key_display="→/]", priority=True),
        Binding("home", "jump(0)", "First", priority=True),
        Binding("end", "jump(-1)", "Last", priority=True),
    ]

    def __init__(self, left: Path, right: Path) -> None:
        super().__init__()
        self.sides = [Side.load(left), Side.load(right)]
        self.cursor = self.last
        self.diff_text = ""  # the unified diff shown
        self.plot = SpeedupPlot([])

    @property
    def last(self) -> int:
        return max(side.last for side in self.sides)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="compare-main"):  # scrolls on a narrow terminal, where the panels stack
            with Horizontal(id="compare-top"):
                yield DataTable(id="compare-summary", cursor_type="none", zebra_stripes=True)
                yield Static("", id="compare-plot")
            yield Static("", id="cursor-bar")
            with Horizontal(id="compare-body"):
                for i, side in enumerate(self.sides):
                    with Vertical(classes="compare-side"):
                        yield Static(f"{'AB'[i]}: {side.session_id}", classes="side-title")
                        yield Transcript(id=f"transcript-{'ab'[i]}")
                with VerticalScroll(id="compare-diff"):
                    yield Static("", id="diff")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "compare"
        self.sub_title = " vs ".join(side.condition for side in self.sides)
        self.show_summary()
        self.show_turn(self.cursor)
        self.transcripts[0].log_widget.focus()
        if not all(side.ended for side in self.sides):
            self.set_interval(RELOAD_S, self.reload)

    @property
    def transcripts(self) -> list[Transcript]:
        return [self.query_one(f"#transcript-{name}", Transcript) for name in "ab"]

    def show_summary(self) -> None:
        table = self.query_one("#compare-summary", DataTable)
        table.clear(columns=True)
        table.add_columns("", *(f"{'AB'[i]}: {side.condition}" for i, side in enumerate(self.sides)))
        summaries = [side.summary() for side in self.sides]
        for row in SUMMARY_ROWS:
            table.add_row(row, *(summary[row] for summary in summaries), key=row)

    def show_turn(self, turn: int) -> None:
        self.cursor = max(0, min(turn, self.last))
        for side, transcript in zip(self.sides, self.transcripts, strict=True):
            transcript.clear()
            transcript.add_events(up_to_turn(side.events, self.cursor))
        series = [(f"{'AB'[i]} {side.condition}", side.curve()) for i, side in enumerate(self.sides)]
        self.plot = SpeedupPlot(series, self.cursor)
        self.query_one("#compare-plot", Static).update(self.plot)
        self.show_diff()
        turns = "  ".join(f"{'AB'[i]} {min(self.cursor, s.last)}/{s.last}" for i, s in enumerate(self.sides))
        bar = f"turn {self.cursor}/{self.last} · {turns} · diff A → B at this turn"
        self.query_one("#cursor-bar", Static).update(bar)

    def show_diff(self) -> None:
        a, b = self.sides
        self.diff_text = solution_diff(a.solution_at(self.cursor), b.solution_at(self.cursor), "A", "B")
        shown: Syntax | Text
        if self.diff_text:
            shown = Syntax(self.diff_text, "diff", theme="monokai", background_color="default", word_wrap=True)
        else:
            shown = Text(f"solution.py is the same in A and B at turn {self.cursor}", style="dim")
        self.query_one("#diff", Static).update(shown)

    def reload(self) -> None:
        """Read the logs of sessions that have not ended again; follow the newest turn if at the end."""
        at_end = self.cursor == self.last
        changed = False
        for i, side in enumerate(self.sides):
            if side.ended:
                continue
            try:
                fresh = Side.load(side.folder)
            except (LogError, OSError):
                continue  # mid-write or moved: try again next time
            if len(fresh.events) != len(side.events):
                self.sides[i], changed = fresh, True
        if changed:
            self.show_summary()
            self.show_turn(self.last if at_end else self.cursor)

    def action_move(self, delta: int) -> None:
        self.show_turn(self.cursor + delta)

    def action_jump(self, turn: int) -> None:
        self.show_turn(self.last if turn < 0 else turn)

    def action_back(self) -> None:
        self.dismiss()
