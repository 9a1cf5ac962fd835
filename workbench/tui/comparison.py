"""Two sessions side by side, as data: each one's summary lines and the diff of their solutions.

Pure (no textual), so the compare screen only lays out what this computes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from workbench.judge import read_judgements
from workbench.session.events import Event, SessionStart
from workbench.session.history import rebuild
from workbench.session.service import Session
from workbench.tui.catalog import condition_of
from workbench.tui.curve import Curve, first_correct_submission, speedup_curve
from workbench.tui.timeline import cost_text, ended_with, last_turn, up_to_turn

SUMMARY_ROWS = ("condition", "turns", "outcome", "correct", "best speedup", "first correct submission",
                "tokens in/out/cache", "cost", "JSdesign", "JSimpl")  # fmt: skip


@dataclass
class Side:
    """One session of a comparison, read from its log."""

    folder: Path
    events: list[Event]
    start: SessionStart

    @classmethod
    def load(cls, folder: Path) -> Side:
        record = Session.open(folder)
        return cls(folder, record.effective, record.start)

    @property
    def condition(self) -> str:
        return condition_of(self.start.levels, self.start.provider)

    @property
    def session_id(self) -> str:
        return self.start.session_id

    @property
    def ended(self) -> bool:
        """Ended for good: its log will not grow (an interrupted one may be resumed)."""
        end = ended_with(self.events)
        return end is not None and end != "interrupted"

    @property
    def last(self) -> int:
        return last_turn(self.events)

    def curve(self) -> Curve:
        return speedup_curve(self.events)

    def solution_at(self, turn: int) -> str:
        return rebuild(up_to_turn(self.events, turn)).solution

    def summary(self) -> dict[str, str]:
        state = rebuild(self.events)
        curve, usage = self.curve(), state.usage
        if not curve.timed:
            best = "untimed"
        else:
            best = f"{curve.best:.2f}x" if curve.best is not None else "–"
        first = first_correct_submission(self.events)
        submissions = f"{state.correct_submissions}/{state.submissions} submissions correct"
        values = {
            "condition": self.condition,
            "turns": str(state.turn),
            "outcome": ended_with(self.events) or "not ended",
            "correct": f"{'yes' if state.correct_submissions else 'no'} ({submissions})",
            "best speedup": best,
            "first correct submission": f"turn {first}" if first is not None else "–",
            "tokens in/out/cache": f"{usage.input_tokens:,} / {usage.output_tokens:,} / {usage.cache_read_tokens:,}",
            "cost": cost_text(state),
        }
        values.update(judge_scores(self.events))
        return values


def judge_scores(events: list[Event]) -> dict[str, str]:
    """JSdesign and JSimpl of the latest judgement, with the per-level scores; else "not judged"."""
    judgements = read_judgements(events)
    if not judgements:
        return {"JSdesign": "not judged", "JSimpl": "not judged"}
    last = judgements[-1]

    def line(mean: float, part: str) -> str:
        levels = " ".join(f"{name} {score.score}" for name, score in sorted(last.part(part).items()))
        return f"{mean:.1f} ({levels})"

    return {"JSdesign": line(last.js_design, "design"), "JSimpl": line(last.js_impl, "implementation")}


def solution_diff(left: str, right: str, left_name: str, right_name: str) -> str:
    """A unified diff of two solution.py texts; empty when they are the same."""
    lines = difflib.unified_diff(left.splitlines(keepends=True), right.splitlines(keepends=True),
                                 f"{left_name}/solution.py", f"{right_name}/solution.py")  # fmt: skip
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
