"""The latest recorded H200 run (docs/runs/, what `workbench suite` shows), read as data.

Every task's expert is in it and correct on every GPU-sized workload, each timed workload has an SOL under the
per-resource model and names its binding resource, and no solution of the run (an expert or a ladder rung) is faster
than its SOL: the model calls SOL a floor, so a kernel over 100% means a formula or a ceiling is wrong
(benchmarks/sol_check.py says which), and a run that shows one must not become the record unexplained.
"""

import pytest

from workbench.suite import latest_run, load_run
from workbench.tasks import load_task, project_root, task_names

RUN_PATH = latest_run(project_root())
pytestmark = pytest.mark.skipif(RUN_PATH is None, reason="no recorded run under docs/runs/")


@pytest.fixture(scope="module")
def run():
    assert RUN_PATH is not None
    return load_run(RUN_PATH)


def gpu_workloads(name: str) -> set[str]:
    return {w.name for w in load_task(name).workloads if not w.interpret}


@pytest.mark.parametrize("name", task_names())
def test_the_expert_is_correct_and_timed_on_every_gpu_workload(run, name):
    expert = run.results[name]["expert"]
    timed = {w.name for w in expert.workloads if w.correct and w.latency_ms and w.reference_ms}
    assert timed == gpu_workloads(name)
    for w in expert.workloads:
        if w.name in timed:
            assert w.sol_fraction and w.sol_fraction > 0, (name, w.name)
            assert w.sol_binding, (name, w.name)


@pytest.mark.parametrize("name", task_names())
def test_no_solution_of_the_run_is_faster_than_its_sol(run, name):
    over = [(rung, w.name, round(w.sol_fraction, 3)) for rung, result in run.results[name].items()
            for w in result.workloads if w.correct and w.sol_fraction and w.sol_fraction > 1.0]  # fmt: skip
    assert over == []
