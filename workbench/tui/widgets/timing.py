"""The timing panel: the session's counters, its speedup over turns, and per workload results of the last eval."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from workbench.session.events import Event, Submission
from workbench.session.history import SessionState
from workbench.tui.curve import speedup_curve
from workbench.tui.timeline import cost_text
from workbench.tui.widgets.plot import SpeedupPlot


def _us(latency: dict | None) -> str:
    return f"{latency['median'] * 1000:.1f}" if latency else "–"


def workloads_table(progress: SessionState) -> RenderableType:
    if progress.last_eval is None:
        return Text("no eval yet", style="dim")
    event = progress.last_eval
    result = event.result
    rows = []
    for w in result.get("workloads", []):
        verdict = Text("correct", "green") if w["correct"] else Text(w.get("failure") or "error", "red")
        speedup = f"{w['speedup']:.2f}x" if w.get("speedup") else "–"
        sol = f"{w['sol_fraction']:.0%}" if w.get("sol_fraction") is not None else "–"
        rows.append((w["name"], verdict, _us(w.get("latency_ms")), _us(w.get("reference_ms")), speedup, sol))
    table = Table(expand=True, box=None, pad_edge=False)
    for index, column in enumerate(("workload", "result", "µs", "ref µs", "speedup", "SOL")):
        if index < 2:  # the words give way in a narrow panel (cut with …), never the figures
            table.add_column(column, justify="left")
        else:
            width = max([len(column)] + [len(str(row[index])) for row in rows])
            table.add_column(column, justify="right", no_wrap=True, min_width=width)
    for row in rows:
        table.add_row(*row)
    kind = "submission" if isinstance(event, Submission) else "eval"
    head = Text(f"last {kind} (turn {event.turn}, by {event.by}): ", style="bold")
    head.append("CORRECT" if event.correct else "NOT CORRECT", "green" if event.correct else "red")
    return Group(head, table)


def counters(progress: SessionState, state: str) -> Text:
    usage = progress.usage
    hit = usage.cache_read_tokens / usage.prompt_tokens if usage.prompt_tokens else None
    cost = cost_text(progress)
    best = f"{progress.best_speedup:.2f}x" if progress.best_speedup else "–"
    return Text.assemble(
        ("turn ", "dim"), f"{progress.turn}/{progress.budget}",
        ("  state ", "dim"), (state, "bold"),
        ("  best ", "dim"), best,
        ("\ntokens ", "dim"), f"{usage.prompt_tokens:,} in / {usage.output_tokens:,} out",
        ("  cache hit ", "dim"), f"{hit:.0%}" if hit is not None else "–",
        ("  cost ", "dim"), cost,
    )  # fmt: skip


class TimingPanel(Static):
    summary = ""  # the counters as plain text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history: list[Event] | None = None  # set by replay: the whole log, the plot marks the cursor
        self.cursor: int | None = None
        self.plot = SpeedupPlot([])

    def show(self, progress: SessionState, state: str) -> None:
        head = counters(progress, state)
        self.summary = head.plain
        events = self.history if self.history is not None else self._shown_events()
        cursor = self.cursor if self.cursor is not None else progress.turn
        self.plot = SpeedupPlot([("", speedup_curve(events))], cursor)
        self.update(Group(head, Text(""), self.plot, Text(""), workloads_table(progress)))

    def _shown_events(self) -> list[Event]:
        """A live session's events so far: what its transcript has shown."""
        from workbench.tui.widgets.transcript import Transcript

        found = self.screen.query(Transcript)
        return found.first().shown if found else []
