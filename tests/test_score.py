import json
import math

import pytest

from workbench.harness.result import EvalResult, Latency, StaticResult, WorkloadResult
from workbench.score import ScoreError, load_baseline, sperf, task_score


def result(task, correct, latencies_ms, reference_ms):
    workloads = [
        WorkloadResult(name=f"w{i}", correct=correct, latency_ms=Latency(ms, ms, 0.0, 10),
                       reference_ms=Latency(ref, ref, 0.0, 10), speedup=ref / ms)
        for i, (ms, ref) in enumerate(zip(latencies_ms, reference_ms))
    ]  # fmt: skip
    return EvalResult(task, "s.py", "", None, StaticResult(True), workloads).finish()


def test_task_speedup_is_the_geomean_over_workloads():
    score = task_score(result("a", True, [1.0, 2.0], [4.0, 2.0]))
    assert score.speedup == pytest.approx(math.sqrt(4.0 * 1.0))


def test_sperf_counts_an_incorrect_task_as_half():
    scores = [task_score(result("a", True, [1.0], [8.0])), task_score(result("b", False, [1.0], [1.0]))]
    assert scores[1].speedup is None
    assert sperf(scores) == pytest.approx(math.sqrt(8.0 * 0.5))


def test_against_a_baseline_file(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"source": "run X", "tasks": {"a": {"w0": 3.0, "w1": 12.0}}}))
    score = task_score(result("a", True, [1.0, 3.0], [9.0, 9.0]), load_baseline(path))
    assert score.speedup == pytest.approx(math.sqrt(3.0 * 4.0))
    with pytest.raises(ScoreError, match="no latency for b/w0"):
        task_score(result("b", True, [1.0], [1.0]), load_baseline(path))


def test_an_untimed_correct_task_cannot_be_scored():
    untimed = EvalResult("a", "s.py", "", None, StaticResult(True), [WorkloadResult("w", correct=True)]).finish()
    with pytest.raises(ScoreError, match="not timed"):
        task_score(untimed)
