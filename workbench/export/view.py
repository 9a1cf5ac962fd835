"""A session as the exported page shows it: its turns with their events, the solution after each turn that changed
it, every eval (interrupted ones marked), the best correct speedup over turns and the submission that counts.

Pure data, folded from a `ReadOnlySession` with the one fold (`SessionState.apply`): the page's HTML is made from
this and from nothing else of the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.judge.scored import scored_submission
from workbench.session.eval_marks import interrupted_evals
from workbench.session.events import (
    EvalResult,
    Event,
    Judgement,
    SessionStart,
    Submission,
    ToolResult,
)
from workbench.session.history import SessionState
from workbench.session.service import ReadOnlySession


@dataclass(frozen=True)
class EvalView:
    """One eval or submission as logged, with what the log says around it."""

    event: EvalResult | Submission
    interrupted: bool  # a person interrupted it while it ran: what it holds is what finished before
    counted: bool  # the submission the session's scoring rule scores

    @property
    def timed(self) -> bool:
        """Whether any workload has a measured latency (never in interpret mode)."""
        return any(isinstance(w.get("latency_ms"), dict) for w in self.workloads)

    @property
    def workloads(self) -> list[dict[str, object]]:
        found = self.event.result.get("workloads")
        return [w for w in found if isinstance(w, dict)] if isinstance(found, list) else []

    @property
    def mode(self) -> str:
        device = self.event.result.get("device")
        return str(device.get("mode", "?")) if isinstance(device, dict) else "?"


@dataclass
class TurnView:
    """A turn's events in log order, and solution.py after it when the turn changed it."""

    turn: int
    events: list[Event] = field(default_factory=list)
    evals: list[EvalView] = field(default_factory=list)
    solution: str | None = None  # None: unchanged by this turn
    inherited: bool = False  # copied from a branch's parent

    @property
    def tools(self) -> list[str]:
        return [e.name for e in self.events if isinstance(e, ToolResult)]


@dataclass(frozen=True)
class CurvePoint:
    turn: int
    speedup: float | None  # this eval's speedup when it is correct and timed
    correct: bool
    interrupted: bool


@dataclass
class SessionView:
    folder: Path
    start: SessionStart
    state: SessionState  # the whole session folded
    turns: list[TurnView]
    evals: list[EvalView]
    torn: bool  # a torn last line was left out
    scoring: str  # which submission counts: final or best
    counted: Submission | None
    judgements: list[Judgement]

    @property
    def condition(self) -> str:
        levels = sorted(self.start.levels)
        return "guided L" + "".join(map(str, levels)) if levels else "unguided"

    @property
    def points(self) -> list[CurvePoint]:
        return [CurvePoint(v.event.turn, v.event.correct_speedup, v.event.correct, v.interrupted) for v in self.evals]

    @property
    def timed(self) -> bool:
        return any(v.timed for v in self.evals)

    @property
    def final_solution(self) -> str:
        """solution.py as the counted submission kept it, else the workspace at the end."""
        files = self.counted.files if self.counted is not None else None
        return files.get("solution.py", "") if files else self.state.solution


def session_view(record: ReadOnlySession) -> SessionView:
    """Fold a session's effective events (what a resume discarded left out) into what the page shows."""
    events = record.effective
    scoring = record.start.scoring or "final"  # logs before the rule was recorded were scored on the last submission
    counted = scored_submission(events, scoring)
    evals = _evals(events, counted)
    by_event = {id(v.event): v for v in evals}
    state, turns = SessionState(), list[TurnView]()
    current: TurnView | None = None
    for event in events:
        if current is None or event.turn != current.turn:
            _close(current, turns, state)
            current = TurnView(event.turn, inherited=event.inherited)
        state.apply(event)
        current.events.append(event)
        if id(event) in by_event:
            current.evals.append(by_event[id(event)])
    _close(current, turns, state)
    judgements = [e for e in events if isinstance(e, Judgement)]
    return SessionView(record.folder, record.start, state, turns, evals, record.torn, scoring, counted, judgements)


def _close(turn: TurnView | None, turns: list[TurnView], state: SessionState) -> None:
    """Finish a turn: keep solution.py when the turn left it different from the turn before."""
    if turn is None:
        return
    before = next((t.solution for t in reversed(turns) if t.solution is not None), None)
    if state.solution and state.solution != before:
        turn.solution = state.solution
    turns.append(turn)


def _evals(events: list[Event], counted: Submission | None) -> list[EvalView]:
    """Every eval and submission, the interrupted ones marked (session/eval_marks.py)."""
    interrupted = interrupted_evals(events)
    return [EvalView(event, id(event) in interrupted, counted is not None and event is counted)
            for event in events if isinstance(event, (EvalResult, Submission))]  # fmt: skip
