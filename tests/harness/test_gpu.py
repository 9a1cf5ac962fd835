"""The harness on a real GPU: timing fields, CUDA faults and OOM as results, the per-GPU lock, profiling."""

import fcntl
import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURE_SOLUTIONS

from workbench.harness import EvalOptions, evaluate
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task

pytestmark = pytest.mark.gpu
CUDA = EvalOptions(mode="cuda", seeds=2, timeout_s=300, timing={"budget_s": 1.0})


@pytest.fixture
def task(fixture_root):
    return load_task("scale_add", fixture_root)


def test_cuda_eval_times_reference_and_solution(task):
    result = evaluate(task, task.expert_path, CUDA)
    assert result.correct, [w.summary() for w in result.workloads]
    assert result.device.mode == "cuda" and result.device.capability
    tiny, small, large = result.workloads
    for ci_sized in (tiny, small):  # interpret = true: checked, but their time is launch overhead
        assert ci_sized.correct and ci_sized.latency_ms is None and "CI-sized" in ci_sized.timing_note
    assert large.latency_ms.n >= 3 and large.latency_ms.median > 0 and large.reference_ms.median > 0
    assert large.speedup == pytest.approx(large.reference_ms.median / large.latency_ms.median)
    assert 0 < large.sol_fraction <= 1.2
    assert result.ceilings["bandwidth_gbps"] > 100 and "measured" in result.ceilings["source"]
    assert result.speedup_geomean == pytest.approx(large.speedup)


def test_an_illegal_memory_access_is_a_result_and_the_parent_carries_on(task):
    result = evaluate(task, FIXTURE_SOLUTIONS / "illegal_address.py", CUDA)
    assert not result.correct
    assert [w.name for w in result.workloads] == ["tiny", "small", "large"]
    assert all(w.error for w in result.workloads)
    assert any("illegal memory access" in w.error or "CUDA" in w.error for w in result.workloads)
    assert evaluate(task, task.expert_path, CUDA).correct  # the GPU is usable again


def test_out_of_memory_is_a_result(task):
    result = evaluate(task, FIXTURE_SOLUTIONS / "out_of_memory.py", EvalOptions(mode="cuda", workloads=["tiny"]))
    (w,) = result.workloads
    assert not w.correct and "out of memory" in w.error.lower()


def _someone_waits_for(path) -> bool:
    """Whether /proc/locks shows a request blocked on this file (a "->" line on its inode): the eval's flock."""
    inode = os.stat(path).st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and any(f.rsplit(":", 1)[-1] == str(inode) for f in fields if f.count(":") == 2):
            return True
    return False


def test_an_eval_waits_for_the_gpu_lock_until_another_lets_go(task):
    """Another eval times (the lock held exclusively): this one must block on the lock, and finish only after the
    other lets go. Both are conditions observed, not durations: it fails at once if the eval finishes first."""
    from workbench.harness.lock import lock_path

    done, results = threading.Event(), []
    with open(lock_path(), "a+") as other_eval_timing:
        fcntl.flock(other_eval_timing, fcntl.LOCK_EX)
        worker = threading.Thread(target=lambda: (results.append(evaluate(task, task.expert_path, CUDA)), done.set()))
        worker.start()
        deadline = time.monotonic() + 240
        while not done.is_set() and not _someone_waits_for(lock_path()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not done.is_set(), "the eval finished while another held the GPU lock exclusively"
        assert _someone_waits_for(lock_path()), "the eval never waited for the GPU lock"
        fcntl.flock(other_eval_timing, fcntl.LOCK_UN)
    assert done.wait(timeout=300)
    worker.join()
    assert results[0].correct, [w.summary() for w in results[0].workloads] or results[0].error


def test_the_profile_tool_runs_the_solution_under_nsight_compute(task, tmp_path):
    if shutil.which("ncu") is None:
        pytest.skip("Nsight Compute (ncu) is not installed on this machine")
    work = tmp_path / "work"
    create_workspace(task, work, set())
    (work / "solution.py").write_text(task.expert_path.read_text())
    outcome = ToolBox(task, work, "cuda").execute("profile", {"workload": "large"}, threading.Event())
    assert not outcome.is_error, outcome.text
    assert "profiled scale_add/large" in outcome.text and "scale_add_kernel" in outcome.text


def test_every_input_set_runs_and_is_checked_when_one_call_outlasts_the_budget():
    import time

    import torch

    from workbench.harness.timing import TimingOptions, flush_buffer, time_functions

    def slow(x):
        time.sleep(0.1)
        return x * 2

    sets = [(torch.full((4,), float(i), device="cuda"),) for i in range(4)]
    [timed] = time_functions([slow], sets, flush_buffer(torch.device("cuda")), TimingOptions(budget_s=0.2))
    assert [float(out[0]) for out in timed.outputs] == [0.0, 2.0, 4.0, 6.0]


def test_two_functions_timed_side_by_side_keep_their_ratio():
    import torch

    from workbench.harness.timing import TimingOptions, flush_buffer, time_functions

    def spin(cycles):
        def run(x):
            torch.cuda._sleep(cycles)
            return x

        return run

    sets = [(torch.zeros(4, device="cuda"),) for _ in range(2)]
    short, long = time_functions(
        [spin(1_000_000), spin(2_000_000)], sets, flush_buffer(torch.device("cuda")), TimingOptions(budget_s=0.5)
    )
    ratio = long.latency.median / short.latency.median
    assert 1.9 < ratio < 2.05, (short.latency, long.latency)
    assert short.latency.n >= 10 and long.latency.n >= 10
