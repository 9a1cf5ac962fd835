"""A session's speedup over turns, folded from its log: what the plot draws. Pure data, no textual."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.session.eval_marks import interrupted_evals
from workbench.session.events import EvalResult, Event, Submission


@dataclass(frozen=True)
class TurnMark:
    """What the evals of one turn showed."""

    turn: int
    best: float | None  # the best correct speedup of turns 1..turn; None while none was measured
    correct: bool | None  # whether the turn's last eval was correct; None: no eval this turn, or it was interrupted
    submitted: bool  # a submission was recorded this turn
    interrupted: bool = False  # the turn's last eval was interrupted by a person: no verdict on the solution


@dataclass(frozen=True)
class Curve:
    marks: list[TurnMark]  # turns 1..last
    timed: bool  # False: no eval measured a time (interpret mode): correctness only

    @property
    def best(self) -> float | None:
        return self.marks[-1].best if self.marks else None


def _measured(event: EvalResult | Submission) -> bool:
    result = event.result
    if isinstance(result.get("speedup_geomean"), (int, float)):
        return True
    return any(w.get("latency_ms") for w in result.get("workloads", []))


def speedup_curve(events: list[Event]) -> Curve:
    """The best correct speedup so far at each turn, with each turn's correctness and submissions."""
    last = max((e.turn for e in events), default=0)
    evals = [e for e in events if isinstance(e, (EvalResult, Submission))]
    interrupted = interrupted_evals(events)
    marks, best = [], None
    for turn in range(1, last + 1):
        mine = [e for e in evals if e.turn == turn]
        for event in mine:
            speedup = event.correct_speedup
            if speedup is not None:
                best = max(best or 0.0, speedup)
        cut = bool(mine) and id(mine[-1]) in interrupted
        correct = mine[-1].correct if mine and not cut else None
        submitted = any(isinstance(e, Submission) for e in mine)
        marks.append(TurnMark(turn, best, correct, submitted, cut))
    return Curve(marks, timed=any(_measured(e) for e in evals))


def first_correct_submission(events: list[Event]) -> int | None:
    """The turn of the first correct submission, or None."""
    for event in events:
        if isinstance(event, Submission) and event.correct:
            return event.turn
    return None
