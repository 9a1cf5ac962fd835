"""The GPU acceptance run can fail: benchmarks/suite_gpu.py exits non-zero when any expert, rung or wrong solution
gets the wrong verdict, and benchmarks/gpu_acceptance.sh fails when any of its steps does, through its `tee`."""

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import REPO

from workbench.harness.result import EvalResult, StaticResult, Violation, WorkloadResult

spec = importlib.util.spec_from_file_location("suite_gpu", REPO / "benchmarks" / "suite_gpu.py")
suite_gpu = importlib.util.module_from_spec(spec)
sys.modules["suite_gpu"] = suite_gpu  # its dataclass looks its module up there
spec.loader.exec_module(suite_gpu)

TASK = "cross_entropy"  # any task with wrong solutions; evaluate is faked, so nothing runs


def _result(*workloads: WorkloadResult, static: StaticResult | None = None) -> EvalResult:
    result = EvalResult(TASK, "solution.py", "", None, static or StaticResult(ok=True), list(workloads))
    return result.finish()


CORRECT = _result(WorkloadResult("w1", correct=True), WorkloadResult("w2", correct=True))
MISMATCH = _result(WorkloadResult("w1", correct=True), WorkloadResult("w2", failure="mismatch", error="seed 1: ..."))
STATIC = _result(static=StaticResult(ok=False, violations=[Violation("forbidden-call", 3, "torch.mm")]))


@pytest.mark.parametrize(
    ("expected", "result", "ok"),
    [
        ("correct", CORRECT, True),
        ("correct", MISMATCH, False),  # an expert that is wrong on one workload
        ("incorrect:mismatch", MISMATCH, True),
        ("incorrect:mismatch", CORRECT, False),  # a wrong solution accepted
        ("incorrect:unwritten", MISMATCH, False),  # rejected, but for another reason than it should be
        ("static:forbidden-call", STATIC, True),
        (None, MISMATCH, False),  # a wrong solution that says nothing of why it is wrong proves nothing
    ],
)
def test_a_verdict_is_right_only_when_it_is_the_one_expected(expected, result, ok):
    assert suite_gpu.judge("t/x", expected, result).ok is ok


def test_the_exit_status_is_one_when_any_verdict_is_wrong_and_names_it(capsys):
    right = suite_gpu.judge("t/expert", "correct", CORRECT)
    wrong = suite_gpu.judge("t/L1", "correct", MISMATCH)
    assert suite_gpu.exit_status([right, right]) == 0
    assert suite_gpu.exit_status([]) == 0  # nothing measured (every eval already done)
    assert suite_gpu.exit_status([right, wrong]) == 1
    assert "WRONG VERDICT t/L1: expected correct, got incorrect:mismatch" in capsys.readouterr().err


def _fake_evaluate(monkeypatch, outcome):
    """evaluate() replaced by one returning `outcome(task_name, rung_or_path)`; no GPU, no child."""
    monkeypatch.setattr(suite_gpu, "evaluate", lambda task, path, options: outcome(path))


def test_the_suite_exits_non_zero_when_one_expert_is_not_correct(monkeypatch, tmp_path):
    args = ["--out", str(tmp_path), "--tasks", TASK, "--jobs", "1"]
    _fake_evaluate(monkeypatch, lambda path: CORRECT)
    assert suite_gpu.main([*args, "--no-ladders"]) == 0
    _fake_evaluate(monkeypatch, lambda path: MISMATCH)
    assert suite_gpu.main([*args, "--no-ladders"]) == 1
    _fake_evaluate(monkeypatch, lambda path: CORRECT if path.name == "expert.py" else MISMATCH)  # one rung wrong
    assert suite_gpu.main(args) == 1


def test_the_wrong_solutions_exit_non_zero_when_one_is_accepted(monkeypatch, tmp_path):
    _fake_evaluate(monkeypatch, lambda path: CORRECT)
    assert suite_gpu.main(["--out", str(tmp_path), "--tasks", TASK, "--only-wrong", "--jobs", "1"]) == 1
    rows = (tmp_path / "wrong.md").read_text().splitlines()[2:]
    assert rows and all(row.endswith("| correct | NO |") for row in rows)


OOM_ERROR = "OutOfMemoryError: CUDA out of memory. Tried to allocate 1.88 GiB."
OUT_OF_MEMORY = _result(WorkloadResult("w1", correct=True), WorkloadResult("w2", failure="error", error=OOM_ERROR))


def test_a_group_that_ran_out_of_gpu_memory_beside_others_is_run_again_alone(monkeypatch, tmp_path, capsys):
    running, calls = [0], []
    lock = threading.Lock()
    both_in = threading.Barrier(2, timeout=10)

    def together(task, paths, options):  # out of memory whenever another group runs at the same moment
        with lock:
            running[0] += 1
        try:
            crowded = running[0] > 1
            if len(calls) < 2:
                both_in.wait()  # the first two groups overlap, as two jobs do on the GPU machine
                crowded = True
            calls.append((task.name, crowded))
            return [OUT_OF_MEMORY if crowded else CORRECT for _ in paths]
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(suite_gpu, "evaluate_together", together)
    code = suite_gpu.main(["--out", str(tmp_path), "--together", "--no-ladders", "--jobs", "2",
                           "--tasks", "cross_entropy", "swiglu"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "cross_entropy: ran out of GPU memory beside other groups; it runs again alone" in out
    assert sorted(calls) == [("cross_entropy", False), ("cross_entropy", True), ("swiglu", False), ("swiglu", True)]
    recorded = json.loads((tmp_path / "suite.json").read_text())["evals"]
    assert {(e["task"], e["result"]["correct"]) for e in recorded} == {("cross_entropy", True), ("swiglu", True)}


def test_out_of_memory_alone_is_the_verdict(monkeypatch, tmp_path):
    monkeypatch.setattr(suite_gpu, "evaluate_together", lambda task, paths, options: [OUT_OF_MEMORY for _ in paths])
    assert suite_gpu.main(["--out", str(tmp_path), "--together", "--no-ladders", "--jobs", "1",
                           "--tasks", "swiglu"]) == 1  # fmt: skip


def _fake_tools(folder: Path, failing: str) -> dict[str, str]:
    """nvidia-smi and python3 stand-ins on PATH; python3 fails when its arguments contain `failing`."""
    folder.mkdir()
    (folder / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA H200, 570.00'\n")
    (folder / "python3").write_text(f'#!/bin/sh\necho "python3 $*"\ncase "$*" in *{failing}*) exit 3;; esac\n')
    for tool in folder.iterdir():
        tool.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("failing", ["--only-wrong", "harness_bench.py", "NO-SUCH-STEP"])
def test_the_acceptance_script_fails_when_any_step_fails_and_still_runs_the_rest(tmp_path, failing):
    out = tmp_path / "out"
    env = _fake_tools(tmp_path / "bin", failing)
    script = REPO / "benchmarks" / "gpu_acceptance.sh"
    done = subprocess.run(["bash", str(script), str(out)], cwd=REPO, env=env, capture_output=True, text=True)
    log = (out / "log.txt").read_text()
    assert log.count("python3 ") == 8, log  # every step ran, whichever failed
    if failing == "NO-SUCH-STEP":
        assert done.returncode == 0 and "every step passed" in log
    else:
        assert done.returncode != 0, log
        assert "FAILED steps:" in log and ("wrong-solutions" if "wrong" in failing else "harness-bench") in log
