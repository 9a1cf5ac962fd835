"""The harness end to end in interpret mode: real child processes, real Triton interpreter."""

import os
import time

import pytest
from conftest import FIXTURE_SOLUTIONS

from workbench.harness import EvalOptions, EvalUsageError, evaluate
from workbench.harness.result import EvalResult, StaticResult
from workbench.harness.runner import build_spec, run_spec, select_workloads
from workbench.harness.verdict import expected_verdict, verdicts
from workbench.tasks import load_task

FAST = EvalOptions(mode="interpret", seeds=2, timeout_s=120)


@pytest.fixture
def task(fixture_root):
    return load_task("scale_add", fixture_root)


def test_expert_is_correct_on_every_interpret_workload_and_untimed(task):
    result = evaluate(task, task.expert_path, FAST)
    assert result.correct, result.to_dict()
    assert [w.name for w in result.workloads] == ["tiny", "small"]
    assert result.device.mode == "interpret"
    for w in result.workloads:
        assert w.seeds_checked == 2
        assert w.latency_ms is None and w.speedup is None and w.sol_fraction is None
        assert "interpret" in w.timing_note
    assert result.speedup_geomean is None


@pytest.mark.parametrize(
    "name", ["torch_fallback", "swallowed_fallback", "partial", "inplace", "cached", "raises", "compile_error"]
)
def test_known_bad_solutions_fail_for_their_reason(task, name):
    path = FIXTURE_SOLUTIONS / f"{name}.py"
    result = evaluate(task, path, EvalOptions(mode="interpret", seeds=2, timeout_s=120, workloads=["small"]))
    assert not result.correct
    assert expected_verdict(path) in verdicts(result), result.to_dict()
    (workload,) = result.workloads
    assert workload.error  # a readable reason, never empty


def test_import_failure_is_a_result_not_a_crash(task):
    result = evaluate(task, FIXTURE_SOLUTIONS / "import_error.py", FAST)
    assert not result.correct and "fails to import" in result.error


def test_a_hang_is_killed_at_the_timeout_and_later_workloads_still_run(task):
    started = time.monotonic()
    result = evaluate(task, FIXTURE_SOLUTIONS / "hang.py", EvalOptions(mode="interpret", seeds=1, timeout_s=8))
    assert time.monotonic() - started < 60
    assert [w.name for w in result.workloads] == ["tiny", "small"]
    assert all("timed out after 8 s" in w.error for w in result.workloads)
    assert verdicts(result) == {"error:timeout"}


def test_a_segfault_is_a_result_and_the_next_workload_gets_a_fresh_child(task):
    # The segfaulting fixture needs ctypes, which the static rules refuse: run the spec directly.
    path = FIXTURE_SOLUTIONS / "segfault.py"
    spec = build_spec(task, path, "interpret", select_workloads(task, "interpret", None), FAST)
    result = EvalResult(task.name, str(path), "", None, StaticResult(ok=True))
    run_spec(spec, result, FAST)
    result.finish()
    assert [w.name for w in result.workloads] == ["tiny", "small"]
    for w in result.workloads:
        assert "SIGSEGV" in w.error, w.error
    assert verdicts(result) == {"error:crash"}
    assert os.getpid()  # still here


def test_static_failure_does_not_run_the_solution(task, tmp_path):
    marker = tmp_path / "ran"
    bad = tmp_path / "bad.py"
    bad.write_text((FIXTURE_SOLUTIONS / "raises.py").read_text() + f"\nimport subprocess\nopen({str(marker)!r}, 'w')\n")
    result = evaluate(task, bad, FAST)
    assert verdicts(result) == {"static:concurrency"}
    assert result.workloads == [] and not marker.exists()


def test_the_child_environment_has_no_secrets(task, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-secret")
    probe = tmp_path / "probe.py"
    source = (FIXTURE_SOLUTIONS.parent / "root/guidance/scale_add/expert.py").read_text()
    probe.write_text(
        source.replace(
            "def solution(x, y, alpha):",
            "import os\n\n\ndef solution(x, y, alpha):\n    assert 'ANTHROPIC_API_KEY' not in os.environ",
        )
    )
    assert evaluate(task, probe, FAST).correct


def test_bad_usage_is_an_error_not_a_result(task, tmp_path):
    with pytest.raises(EvalUsageError, match="no solution file"):
        evaluate(task, tmp_path / "missing.py", FAST)
    with pytest.raises(EvalUsageError, match="too large for the interpreter"):
        evaluate(task, task.expert_path, EvalOptions(mode="interpret", workloads=["large"]))


def test_an_eval_cancelled_while_another_times_ends_without_starting_its_child(task, tmp_path, monkeypatch):
    """On a GPU machine the parent waits for the lock before it starts the child; a cancel (the app's
    interrupt) during that wait ends the eval at once. No GPU is needed: the child is never started."""
    import fcntl
    import threading

    from workbench.harness.lock import lock_path

    monkeypatch.setenv("WORKBENCH_LOCK_DIR", str(tmp_path))
    cancel, results = threading.Event(), []
    with open(lock_path(), "a+") as other_eval_timing:
        fcntl.flock(other_eval_timing, fcntl.LOCK_EX)
        options = EvalOptions(mode="cuda", workloads=["tiny"], cancel=cancel)
        worker = threading.Thread(target=lambda: results.append(evaluate(task, task.expert_path, options)))
        worker.start()
        time.sleep(0.5)
        assert worker.is_alive() and not results
        cancel.set()
        worker.join(timeout=10)
    assert results and results[0].error == "interrupted: the eval was cancelled"
    assert results[0].device is None  # no child ran
