"""Several solutions in one eval (runner.evaluate_together), on the CPU interpreter through one checker: each keeps
its own worker and verdict over the same seeds. The timing they share on CUDA is tested in test_timing_protocol.py
(time_together) and run on the GPU by benchmarks/suite_gpu.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.harness.runner import EvalOptions, EvalUsageError, evaluate, evaluate_together
from workbench.tasks import load_task

TASK = load_task("rmsnorm_residual")
WRONG = Path(TASK.expert_path or "").parent / "wrong"


def test_each_solution_of_a_group_gets_its_own_verdict_on_the_same_seeds():
    solutions = [Path(TASK.expert_path or ""), WRONG / "modifies_input.py", WRONG / "calls_reference.py",
                 Path(TASK.expert_path or "").parent / "ladder" / "l1.py"]  # fmt: skip
    expert, modifies, static, rung = evaluate_together(TASK, solutions, EvalOptions(mode="interpret", seeds=1),
                                                       one_checker=True)  # fmt: skip
    assert expert.correct and rung.correct and [w.name for w in expert.workloads] == [w.name for w in rung.workloads]
    assert not modifies.correct and {w.failure for w in modifies.workloads} == {"input-modified"}
    assert not static.correct and static.error and "calls-reference" in static.error and not static.workloads
    assert len({r.seed for r in (expert, modifies, static, rung)}) == 1
    assert expert.solution.endswith("expert.py") and modifies.solution.endswith("modifies_input.py")
    # the same verdict as the solution's own eval on that seed
    alone = evaluate(TASK, WRONG / "modifies_input.py", EvalOptions(mode="interpret", seeds=1, seed=modifies.seed))
    assert [(w.name, w.failure) for w in alone.workloads] == [(w.name, w.failure) for w in modifies.workloads]


def test_a_missing_solution_in_a_group_is_a_usage_error_before_anything_runs():
    with pytest.raises(EvalUsageError, match="no solution file"):
        evaluate_together(TASK, [Path(TASK.expert_path or ""), Path("/nonexistent/solution.py")],
                          EvalOptions(mode="interpret"))  # fmt: skip


def test_members_of_one_folder_get_caches_of_their_own_that_neither_can_reach_from_the_other(monkeypatch, tmp_path):
    """Solutions of one folder share its Triton cache one eval after the other; timed together they would share it
    at the same moment, one able to plant a compiled kernel while the other loads it."""
    import workbench.harness.runner as runner

    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))
    seen = []
    monkeypatch.setattr(runner, "_run_group", lambda specs, results, options: seen.extend(specs))
    solutions = [WRONG / "modifies_input.py", WRONG / "partial_write.py", Path(TASK.expert_path or ""),
                 WRONG / "mean_over_block.py"]  # fmt: skip
    evaluate_together(TASK, solutions, EvalOptions(mode="interpret", seeds=1), one_checker=True)
    caches = [Path(spec.triton_cache) for spec in seen]
    assert len(caches) == 4 and len(set(caches)) == 4 and all(c.is_dir() for c in caches)
    assert not any(a != b and b.is_relative_to(a) for a in caches for b in caches)  # none inside another
    # a member alone keeps its folder's cache, as every single eval does
    assert caches[0] == runner.triton_cache_dir(None, TASK, solutions[0])
    assert caches[2] == runner.triton_cache_dir(None, TASK, solutions[2])
