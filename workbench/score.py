"""Scoring as the paper does it: per-task speedup is the geometric mean over its workloads, and
Sperf over tasks is the geometric mean of those, an incorrect task counting as 0.5.

Speedups are against the reference timed in the same eval, or against a baseline file of latencies
(for instance a baseline run's first correct submission), given as
`{"source": "...", "tasks": {"TASK": {"WORKLOAD": latency_ms, ...}, ...}}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from workbench.harness.result import EvalResult, geomean

INCORRECT_SPEEDUP = 0.5


class ScoreError(ValueError):
    """Scores that cannot be computed honestly (a correct task that was never timed, say)."""


@dataclass(frozen=True)
class TaskScore:
    task: str
    correct: bool
    speedup: float | None  # None when incorrect

    @property
    def counted(self) -> float:
        """What the task contributes to Sperf."""
        if not self.correct:
            return INCORRECT_SPEEDUP
        assert self.speedup is not None
        return self.speedup


Baseline = dict[str, dict[str, float]]


def load_baseline(path: Path) -> Baseline:
    data = json.loads(path.read_text())
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        raise ScoreError(f"{path}: missing field 'tasks' (task -> workload -> latency_ms)")
    return {task: {w: float(ms) for w, ms in workloads.items()} for task, workloads in tasks.items()}


def task_score(result: EvalResult, baseline: Baseline | None = None) -> TaskScore:
    """Speedup of one eval result; against the baseline's latencies when given."""
    if not result.correct:
        return TaskScore(result.task, False, None)
    speedups = []
    timed = [(w, w.latency_ms) for w in result.workloads if w.latency_ms is not None]
    if not timed:
        notes = {w.timing_note for w in result.workloads}
        raise ScoreError(f"{result.task} was not timed ({'; '.join(sorted(map(str, notes)))}); no speedup to score")
    for w, latency in timed:
        if baseline is None:
            assert w.speedup is not None
            speedups.append(w.speedup)
        else:
            try:
                speedups.append(baseline[result.task][w.name] / latency.median)
            except KeyError:
                raise ScoreError(f"baseline has no latency for {result.task}/{w.name}") from None
    return TaskScore(result.task, True, geomean(speedups))


def sperf(scores: Iterable[TaskScore]) -> float:
    """Geometric mean over tasks of speedup, 0.5 for an incorrect task."""
    values = [s.counted for s in scores]
    if not values:
        raise ScoreError("no tasks to score")
    return geomean(values)
