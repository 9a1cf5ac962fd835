"""The speedup-over-turns plot: one row of Unicode blocks per session, submissions marked below it.

A rich renderable, so it fits whatever width it is given: the timing panel and the compare screen
both draw it. A session whose evals measured no time (interpret mode) shows correct/incorrect per
turn and says so, rather than a speedup it does not have.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from workbench.tui.curve import Curve, TurnMark

BLOCKS = "▁▂▃▄▅▆▇█"
UNTIMED = "untimed: correctness only"
LABEL_MAX = 14


@dataclass(frozen=True)
class Column:
    """One column of the plot: a turn, or several when the session has more turns than the width."""

    first: int
    last: int
    best: float | None
    correct: bool | None
    submitted: bool
    interrupted: bool = False


def columns(marks: list[TurnMark], width: int) -> list[Column]:
    if not marks or width <= 0:
        return []
    step = math.ceil(len(marks) / width)
    found = []
    for start in range(0, len(marks), step):
        group = marks[start : start + step]
        verdicts = [m.correct for m in group if m.correct is not None]
        correct = any(verdicts) if verdicts else None
        found.append(Column(group[0].turn, group[-1].turn, group[-1].best, correct, any(m.submitted for m in group),
                            any(m.interrupted for m in group)))  # fmt: skip
    return found


def _cell(column: Column, timed: bool, top: float) -> Text:
    if timed and column.best is not None:
        level = min(len(BLOCKS) - 1, int(column.best / top * (len(BLOCKS) - 1) + 0.5)) if top > 0 else 0
        return Text(BLOCKS[level], "green")
    if column.correct is None:  # no verdict: no eval, or one a person interrupted (not the solution's failure)
        return Text("‖", "yellow") if column.interrupted else Text("·", "dim")
    return Text("✓", "green") if column.correct else Text("✗", "red")


class SpeedupPlot:
    """Best correct speedup so far per turn for each (label, curve), on one turn scale; `cursor` is
    the turn shown elsewhere on the screen (reverse video)."""

    def __init__(self, series: list[tuple[str, Curve]], cursor: int | None = None) -> None:
        self.series = series
        self.cursor = cursor

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines(options.max_width)

    def lines(self, width: int) -> list[Text]:
        timed = any(curve.timed for _, curve in self.series)
        label_w = min(LABEL_MAX, max((len(label) for label, _ in self.series), default=0)) + 1
        turns = max((len(curve.marks) for _, curve in self.series), default=0)
        cells_w = max(1, width - label_w - 12)
        top = max((curve.best or 0.0 for _, curve in self.series), default=0.0)
        title = "best correct speedup per turn" if timed else UNTIMED
        out = [Text(f"{title} · {turns} turns", style="bold")]
        for label, curve in self.series:
            row, marks = Text(label[: label_w - 1].ljust(label_w), "bold"), Text(" " * label_w)
            for column in columns(curve.marks, cells_w):
                here = self.cursor is not None and column.first <= self.cursor <= column.last
                cell = _cell(column, timed, top)
                if here:
                    cell.stylize("reverse")
                row.append_text(cell)
                marks.append("S" if column.submitted else " ", "bold yellow" if column.submitted else "")
            if timed:
                row.append(f" {curve.best:.2f}x" if curve.best is not None else " –", "bold")
            else:
                correct = sum(1 for m in curve.marks if m.correct)
                row.append(f" {correct}/{sum(1 for m in curve.marks if m.correct is not None)} ✓", "dim")
            out += [row, marks]
        return out

    def plain(self, width: int = 60) -> str:
        return "\n".join(line.plain for line in self.lines(width))
