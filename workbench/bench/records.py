"""What the report knows of a session, read from its log and nothing else.

Outcomes (submissions, turns, judgements) come from the log as resume sees it: a turn cut by a kill
and discarded on resume does not count. A session's result is its scored submission's, under the scoring rule its
log records (`final`, the paper's rule and that of older logs: the last submission; `best`: the best correct one),
chosen as the judge chooses it; a session without a correct submission of its own may have had its best correct
evaluation submitted for it (by "auto"), which then is its last submission. Tokens and cost likewise count the
responses of the session as it stands; the discarded responses are counted apart (`discarded_responses`), since they
were paid for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.bench.plan import condition_name
from workbench.harness.result import EvalResult
from workbench.judge import Judgement, read_judgements
from workbench.judge.scored import scored_submission
from workbench.score import Baseline, ScoreError, task_score
from workbench.session.events import ModelResponse, SessionEnd, correct_speedup
from workbench.session.events import Submission as SubmissionEvent
from workbench.session.history import complete_turns
from workbench.session.log import LogError
from workbench.session.service import Session

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_SEED = re.compile(r"--s(\d+)$")


@dataclass(frozen=True)
class Submission:
    turn: int
    correct: bool
    result: dict[str, Any]  # the eval result as logged
    by: str = "agent"  # agent, human, or auto (the best correct evaluation, submitted when the session ended)


@dataclass(frozen=True)
class TaskOutcome:
    """A session's result on its task: correct or not, and the best correct speedup where timed."""

    correct: bool
    speedup: float | None  # None: incorrect, or correct but untimed
    timed: bool


@dataclass
class SessionRecord:
    folder: Path
    task: str
    model: str  # provider:model
    condition: str
    seed: int | None  # from the bench's folder name; None for a session outside a bench
    mode: str
    end_reason: str | None
    turns: int
    submissions: list[Submission] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    judgement: Judgement | None = None  # the latest one
    discarded_responses: int = 0
    scoring: str = "final"  # the rule the session ran under: which submission counts
    scored: Submission | None = None  # the submission that counts; None: none was made

    @property
    def correct(self) -> bool:
        """The submission that counts is correct."""
        return self.scored is not None and self.scored.correct

    @property
    def auto_submitted(self) -> bool:
        """What counts was submitted automatically: the agent made no correct submission of its own."""
        return self.scored is not None and self.scored.by == "auto"

    @property
    def first_correct_turn(self) -> int | None:
        return min((s.turn for s in self.submissions if s.correct), default=None)

    def outcome(self, baseline: Baseline | None = None) -> TaskOutcome:
        """The scored submission's speedup when it is correct: its speedup_geomean against the reference, or its
        latencies against the baseline's. Correct but never timed (the interpreter): untimed."""
        if self.scored is None or not self.scored.correct:
            return TaskOutcome(False, None, False)
        speedup = _speedup(self.scored.result, baseline)
        return TaskOutcome(True, speedup, speedup is not None)


def _speedup(result: dict[str, Any], baseline: Baseline | None) -> float | None:
    if baseline is None:
        return correct_speedup(result)
    try:
        return task_score(EvalResult.from_dict(result), baseline).speedup
    except ScoreError as exc:
        if "was not timed" in str(exc):
            return None
        raise


def read_record(folder: Path) -> SessionRecord:
    """The record of one session folder (holding events.jsonl)."""
    opened = Session.open(folder)
    start, events, live = opened.start, opened.events, opened.effective
    ends = [e for e in live if isinstance(e, SessionEnd)]
    responses = [e for e in live if isinstance(e, ModelResponse)]
    usage = {name: sum(int(e.usage.get(name, 0)) for e in responses) for name in USAGE_FIELDS}
    costs = [e.cost for e in responses if e.cost is not None]
    seed = _SEED.search(folder.parent.name)
    judgements = read_judgements(live)
    scoring = start.scoring or "final"
    scored = scored_submission(live, scoring)
    return SessionRecord(
        folder=folder,
        task=start.task,
        model=f"{start.provider}:{start.model}",
        condition=condition_name(start.levels),
        seed=int(seed.group(1)) if seed else None,
        mode=start.mode,
        end_reason=ends[-1].reason if ends else None,
        turns=complete_turns(live),
        submissions=[Submission(e.turn, e.correct, e.result, e.by) for e in live if isinstance(e, SubmissionEvent)],
        usage=usage,
        cost=sum(costs) if costs else None,
        judgement=judgements[-1] if judgements else None,
        discarded_responses=sum(1 for e in events if isinstance(e, ModelResponse)) - len(responses),
        scoring=scoring,
        scored=Submission(scored.turn, scored.correct, scored.result, scored.by) if scored else None,
    )


def read_records(root: Path) -> list[SessionRecord]:
    """Every session under a bench folder's sessions/ (or any folder of sessions), in path order."""
    found = []
    for path in sorted(root.rglob("events.jsonl")):
        try:
            found.append(read_record(path.parent))
        except LogError:
            continue  # a folder the store had not finished making: nothing happened in it
    return found


def first_correct_latencies(records: list[SessionRecord]) -> Baseline:
    """A baseline from a baseline run: per task and workload, the median over its sessions of their
    first correct submission's median latency (ms)."""
    samples: dict[str, dict[str, list[float]]] = {}
    for record in records:
        first = next((s for s in record.submissions if s.correct), None)
        if first is None:
            continue
        for workload in first.result.get("workloads", []):
            latency = workload.get("latency_ms")
            if latency:
                samples.setdefault(record.task, {}).setdefault(workload["name"], []).append(float(latency["median"]))
    return {task: {name: _median(values) for name, values in workloads.items()} for task, workloads in samples.items()}


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
