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


def test_a_launch_through_a_tensor_descriptor_is_recorded_and_compiled_for_sm_90():
    import json

    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    kernel = compile_check._load(REPO / "tests" / "fixtures" / "compile_check" / "descriptor_rows.py", "_desc_rows")
    src = torch.zeros(256, 64, dtype=torch.bfloat16)
    launch = {
        "args": [compile_check._encode(a) for a in (TensorDescriptor.from_tensor(src, [64, 64]), src)],
        "kwargs": {k: compile_check._encode(v) for k, v in {"BLOCK_M": 64, "D": 64, "num_warps": 4}.items()},
    }
    launch = json.loads(json.dumps(launch))  # as it crosses from the recording child to the compiling one
    desc = compile_check._decode(launch["args"][0])
    assert (desc.shape, desc.strides, desc.block_shape) == ([256, 64], [64, 1], [64, 64])
    compile_check.compile_launch(kernel.copy_rows, launch)  # raises if sm_90 refuses it or no cubin comes back


def test_resources_of_every_workloads_launch_are_read_from_the_cubin_without_running_the_gpu_sized_ones():
    """--all-workloads records the launches of the timed, GPU-sized workloads with their kernels skipped (the
    interpreter would take hours on them); --resources reads each compiled launch's registers, local and shared
    memory from its cubin and works out how many programs fit on an SM."""
    task = compile_check.load_task("rope_qk_norm", REPO)  # its GPU-sized inputs are made on the CPU in seconds
    outcome = compile_check.check(task.name, "expert", task.expert_path, measure=True, every_workload=True)
    assert outcome.ok, outcome.error or outcome.failures
    seen = {r["workload"] for r in outcome.resources}
    timed = {w.name for w in task.workloads if not w.interpret}
    assert timed and seen & timed, seen  # launches of GPU-sized workloads, recorded without running them
    for r in outcome.resources:
        assert r["regs"] > 0 and r["warps"] >= 1 and r["local"] >= 0 and r["shared"] >= 0
        # one program's warps, each taking whole units of 8 registers a thread, against the 64K registers of an SM
        assert r["by_regs"] == 65536 // (-(-r["regs"] // 8) * 8 * 32 * r["warps"])
        assert r["per_sm"] == min(r["by_regs"], r["by_threads"], r["by_shared"], 32) >= 1
    row = compile_check.table([outcome])[2]  # the first launch's line, under the solution's
    assert " registers" in row and " a SM (by " in row
    # without --all-workloads, the interpret workloads' launches only
    plain = compile_check.check(task.name, "expert", task.expert_path, measure=True)
    assert {r["workload"] for r in plain.resources} <= {w.name for w in (*task.workloads, *task.hidden) if w.interpret}


def test_every_config_of_an_autotuned_kernel_and_a_kernel_in_a_sibling_module_are_compiled():
    """The GPU compiles every config an @triton.autotune lists while it tunes, so each is a launch to check (the
    first runs under the interpreter, the others are recorded); a kernel in a module beside solution.py (an eval
    copies it along) is found and compiled like one in solution.py."""
    fixtures = REPO / "tests" / "fixtures" / "compile_check"
    tuned = compile_check.check("swiglu", "autotuned", fixtures / "swiglu_autotuned.py", measure=True)
    assert tuned.ok, tuned.error or tuned.failures
    configs = {(r["constexprs"], r["warps"]) for r in tuned.resources}
    assert configs == {("BLOCK=256", 2), ("BLOCK=1024", 4)}, configs
    beside = compile_check.check("swiglu", "sibling", fixtures / "sibling" / "solution.py", measure=True)
    assert beside.ok and beside.compiled == beside.recorded > 0, beside.error or beside.failures
    assert {r["kernel"] for r in beside.resources} == {"swiglu_rows"}
