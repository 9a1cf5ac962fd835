"""The harness end to end in interpret mode: real child processes, real Triton interpreter."""

import os
import re
import time

import pytest
from conftest import FIXTURE_SOLUTIONS

from workbench.harness import EvalOptions, EvalUsageError, evaluate, sandbox
from workbench.harness.result import StaticResult
from workbench.harness.verdict import expected_runtime_verdict, expected_verdict, verdicts
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


FORBIDDEN_MUL = re.escape("torch op aten.mul ran in solution(); compute must happen in Triton kernels")
# What the user reads for each known-bad fixture on the "small" workload (n = 3000): the exception's type and
# message and the solution's line, or what was wrong with the output. Seeds are drawn per eval: any seed.
ERRORS = {
    "torch_fallback": FORBIDDEN_MUL,
    "swallowed_fallback": FORBIDDEN_MUL,
    "partial": r"seed \d+: out: 952 elements never written \(still hold the poison\) of 3000; first at \[2048\].*",
    "inplace": r"seed \d+: input 1 was modified by the solution",
    "cached": re.escape("solution() returned without launching a Triton kernel"),
    "raises": re.escape(
        'ValueError: deliberate failure in the solution (solution.py:18 in solution: raise ValueError("deliberate'
        ' failure in the solution"))'
    ),
    "compile_error": re.escape(  # the kernel's line first (the error is there), then the launch
        """InterpreterError: NameError("name 'undefined_name' is not defined") (solution.py:9 in broken_kernel: """
        "tl.store(out_ptr + offs, tl.load(x_ptr + offs) * undefined_name, mask=offs < n); launched at "
        "solution.py:14 in solution)"
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_known_bad_solutions_fail_for_their_reason(task, name, monkeypatch):
    """Fixtures the static rules already reject (an `# expect-runtime:` line) are run with the rules out of the way,
    so that what the run time says of them stays tested."""
    import workbench.harness.runner as runner

    path = FIXTURE_SOLUTIONS / f"{name}.py"
    expected = expected_runtime_verdict(path)
    if expected is not None:
        monkeypatch.setattr(runner, "check_source", lambda source, forbidden=(): StaticResult(ok=True))
    result = evaluate(task, path, EvalOptions(mode="interpret", seeds=2, timeout_s=120, workloads=["small"]))
    assert not result.correct
    assert (expected or expected_verdict(path)) in verdicts(result), result.to_dict()
    (workload,) = result.workloads
    assert re.fullmatch(ERRORS[name], workload.error or ""), workload.error


def test_import_failure_is_a_result_not_a_crash(task):
    result = evaluate(task, FIXTURE_SOLUTIONS / "import_error.py", FAST)
    assert not result.correct and result.workloads == []
    assert result.error == (
        "could not load the solution: ImportError: this solution fails to import"
        ' (solution.py:6 in <module>: raise ImportError("this solution fails to import"))'
    )


def test_a_hang_is_killed_at_the_timeout_and_later_workloads_still_run(task):
    started = time.monotonic()
    result = evaluate(task, FIXTURE_SOLUTIONS / "hang.py", EvalOptions(mode="interpret", seeds=1, timeout_s=8))
    assert time.monotonic() - started < 60
    assert [w.name for w in result.workloads] == ["tiny", "small"]
    # and where: the worker's own stack dump, read from its log once it was killed (the fixture spins in solution())
    expected = r"timed out after 8 s \(killed\); it was at solution\.py:1[89] in solution"
    assert all(re.fullmatch(expected, w.error or "") for w in result.workloads), [w.error for w in result.workloads]
    assert verdicts(result) == {"error:timeout"}


def test_a_segfault_is_a_result_and_the_next_workload_gets_a_fresh_child(task, monkeypatch):
    # The segfaulting fixture needs ctypes, which the static rules refuse (and the audit hook too, unless the
    # solution gets it before the hook is in place: here it segfaults at import, in a fresh worker each time).
    import workbench.harness.runner as runner

    monkeypatch.setattr(runner, "check_source", lambda source, forbidden=(): StaticResult(ok=True))
    result = evaluate(task, FIXTURE_SOLUTIONS / "segfault.py", FAST)
    assert not result.correct
    assert result.error is not None or all(not w.correct for w in result.workloads)
    assert os.getpid()  # still here


def test_a_crash_on_one_workload_leaves_the_others_to_a_fresh_process(task):
    """The fixture is correct on "small" and kills its process on "tiny", which runs first: "small" is checked
    (and correct) only if a fresh process took over after the crash."""
    result = evaluate(task, FIXTURE_SOLUTIONS / "crashes_on_tiny.py", FAST)
    assert [w.name for w in result.workloads] == ["tiny", "small"], result.error
    tiny, small = result.workloads
    assert small.correct and small.seeds_checked == 2, small.summary()
    assert not tiny.correct and tiny.error.startswith("the solution's process died: SIGSEGV"), tiny.error
    assert verdicts(result) == {"error:crash"}


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


@pytest.mark.skipif(not sandbox.confinement().works, reason="needs bubblewrap (CI installs it and fails without)")
def test_the_solution_runs_confined_in_its_own_pid_namespace_without_the_host(task):
    """The fixture is correct only where it has a PID namespace of its own and cannot see /work or /root: an eval
    whose worker is not confined fails it."""
    result = evaluate(task, FIXTURE_SOLUTIONS / "confinement_probe.py", EvalOptions(mode="interpret", seeds=1))
    assert result.correct and result.confined, [w.summary() for w in result.workloads] or result.error


def test_workbench_seed_fixes_the_seed_of_every_eval_and_a_bad_one_is_a_usage_error(monkeypatch):
    from workbench.harness import runner

    monkeypatch.delenv("WORKBENCH_SEED", raising=False)
    assert runner.fixed_seed() is None
    monkeypatch.setenv("WORKBENCH_SEED", "7")
    assert runner.fixed_seed() == 7
    monkeypatch.setenv("WORKBENCH_SEED", "seven")
    with pytest.raises(EvalUsageError, match="WORKBENCH_SEED"):
        runner.fixed_seed()
