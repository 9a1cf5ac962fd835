"""benchmarks/compile_check.py compiles every kernel launch of a solution's interpret workloads for sm_90 without a
GPU, and it can fail: a kernel the interpreter runs fine but Triton's GPU code generator refuses is reported with its
kernel, its line and the compiler's message, and the exit status says so."""

import importlib.util
import sys

from conftest import REPO

spec = importlib.util.spec_from_file_location("compile_check", REPO / "benchmarks" / "compile_check.py")
compile_check = importlib.util.module_from_spec(spec)
sys.modules["compile_check"] = compile_check
spec.loader.exec_module(compile_check)

BROKEN = REPO / "tests" / "fixtures" / "compile_check" / "swiglu_global_constant.py"


def test_an_expert_compiles_and_a_gpu_only_error_is_reported_with_its_line(capsys):
    status = compile_check.main(["--tasks", "swiglu", "--experts", f"swiglu={BROKEN}"])
    out = capsys.readouterr().out
    assert status == 1
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("swiglu ")}
    recorded, compiled = (int(v) for v in rows["expert"].split()[2:4])
    assert recorded > 0 and compiled == recorded and rows["expert"].endswith("ok")
    assert "FAILED" in rows[BROKEN.name]
    assert "swiglu_kernel: line 19 (out = gate / (1.0 + tl.exp2(-gate * LOG2E)) * up)" in out
    assert "Cannot access global variable LOG2E" in out


def test_a_solution_whose_task_cannot_be_told_is_refused_in_one_line(capsys):
    assert compile_check.main([str(BROKEN)]) == 2
    refusal = f"compile_check: cannot tell the task of {str(BROKEN)!r}: give it as TASK=PATH"
    assert capsys.readouterr().err.strip() == refusal
    assert compile_check.main(["--tasks", "no_such_task"]) == 2
