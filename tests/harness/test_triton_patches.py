"""Triton's CPU interpreter under the harness's patches: the patterns production kernels use compute what
torch computes, and the runtime guard's boundary runs through the launch path where it should.

One child process (TRITON_INTERPRET=1, the patches applied) runs a small kernel per pattern and reports
each one's error against torch (or its exception); the tests read that report. CI runs this file on the
pinned Triton and on the newest one.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO

CHILD = textwrap.dedent(
    """
    import json
    import torch
    import triton
    import triton.language as tl
    import triton.language as tlang
    from triton.language import program_id
    from workbench.harness.solution_side import triton_patches
    from workbench.harness.solution_side.guard import ForbiddenCall, SolutionGuard

    patches = triton_patches.apply(interpret=True)
    try:
        from triton.language.extra import libdevice
    except ImportError:
        libdevice = tl.extra.cuda.libdevice
    _max = tl.max  # an aliased builtin


    @triton.jit
    def float_arg_kernel(x_ptr, y_ptr, scale, eps, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + offs, (x * scale.to(tl.float32) + eps.to(tl.float32)).to(tl.bfloat16), mask=m)


    @triton.jit
    def libdevice_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=1.0)
        a = libdevice.abs(x)
        y = libdevice.tanh(x) + libdevice.erf(x) + libdevice.rsqrt(a + 1.0) + libdevice.pow(a, 1.5) + libdevice.exp2(x)
        tl.store(y_ptr + offs, y, mask=m)


    @triton.jit
    def bf16_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        a = tl.load(a_ptr + offs, mask=m)
        b = tl.load(b_ptr + offs, mask=m)
        tl.store(y_ptr + offs, tl.where(a < b, a * b + a, b - a * 0.5), mask=m)


    @triton.jit
    def fp8_kernel(x_ptr, b_ptr, q4_ptr, q5_ptr, back4_ptr, back5_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        q4 = tl.load(x_ptr + offs).to(tl.float8e4nv)
        q5 = tl.load(b_ptr + offs).to(tl.float8e5)
        tl.store(q4_ptr + offs, q4)
        tl.store(q5_ptr + offs, q5)
        tl.store(back4_ptr + offs, q4.to(tl.float32))
        tl.store(back5_ptr + offs, q5.to(tl.bfloat16))


    @triton.jit
    def alias_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = program_id(0)
        offs = tlang.arange(0, BLOCK)
        x = tlang.load(x_ptr + row * n + offs, mask=offs < n, other=-float("inf"))
        tlang.store(y_ptr + row, _max(x, axis=0))


    @triton.jit
    def oob_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        wild = tl.where(m, offs.to(tl.int64), offs.to(tl.int64) + (1 << 40))  # masked lanes: far out of bounds
        tl.store(y_ptr + offs, tl.load(x_ptr + wild, mask=m, other=-7.0))


    @triton.jit
    def torch_in_body_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        torch.relu(torch.ones(2))  # compute outside Triton: the interpreter runs this line as Python
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


    def torch_in_hook(nargs):
        nargs["x_ptr"].sum()


    # a config's pre_hook runs before every launch; the autotuner's own pre_hook only while benchmarking,
    # which the interpreter skips
    @triton.autotune(configs=[triton.Config({"BLOCK": 16}, pre_hook=torch_in_hook)], key=[])
    @triton.jit
    def hooked_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


    class Spy(torch.Tensor):  # its __torch_function__ would run inside Triton's (suspended) argument copies
        pass


    def err(got, want):
        return (got.double() - want.double()).abs().max().item()


    def float_arg():
        x, y = torch.randn(37), torch.empty(37, dtype=torch.bfloat16)
        float_arg_kernel[(1,)](x, y, 0.37, 1e-3, 37, BLOCK=64)
        return err(y, (x * 0.37 + 1e-3).bfloat16())


    def libdevice_calls():
        x, y = torch.randn(37), torch.empty(37)
        libdevice_kernel[(1,)](x, y, 37, BLOCK=64)
        return err(y, torch.tanh(x) + torch.erf(x) + torch.rsqrt(x.abs() + 1) + x.abs() ** 1.5 + torch.exp2(x))


    def bf16():
        a, b = torch.randn(37).bfloat16(), torch.randn(37).bfloat16()
        y = torch.empty_like(a)
        bf16_kernel[(1,)](a, b, y, 37, BLOCK=64)
        return err(y, torch.where(a < b, a * b + a, b - a * 0.5))  # torch rounds each op to bf16, as the GPU


    def fp8():
        x, b = torch.randn(64) * 50, (torch.randn(64) * 1000).bfloat16()
        x[:4] = torch.tensor([-31.7, 31.7, 15.9, 0.3])  # rounding up across a power of two
        q4, q5 = torch.empty(64, dtype=torch.float8_e4m3fn), torch.empty(64, dtype=torch.float8_e5m2)
        back4, back5 = torch.empty(64), torch.empty(64, dtype=torch.bfloat16)
        fp8_kernel[(1,)](x, b, q4, q5, back4, back5, BLOCK=64)
        r4, r5 = x.to(torch.float8_e4m3fn), b.to(torch.float8_e5m2)
        codes = max(err(q4.float(), r4.float()), err(q5.float(), r5.float()))
        return max(codes, err(back4, r4.float()), err(back5, r5.bfloat16()))


    def aliases():
        x, y = torch.randn(3, 37), torch.empty(3)
        alias_kernel[(3,)](x, y, 37, BLOCK=64)
        return err(y, x.max(1).values)


    def oob():
        x, y = torch.randn(10), torch.empty(16)
        oob_kernel[(1,)](x, y, 10, BLOCK=16)
        return err(y, torch.cat([x, torch.full((6,), -7.0)]))


    def guarded(launch):
        guard = SolutionGuard({}, ())
        try:
            with guard:
                launch()
        except ForbiddenCall as exc:
            return {"refused": str(exc), "launches": guard.launches}
        return {"refused": None, "launches": guard.launches}


    def one_launch():
        x, y = torch.randn(16), torch.empty(16)
        return guarded(lambda: alias_kernel[(1,)](x, y, 16, BLOCK=16))


    def body_torch():
        x, y = torch.randn(16), torch.empty(16)
        return guarded(lambda: torch_in_body_kernel[(1,)](x, y, BLOCK=16))


    def hook_torch():
        x, y = torch.randn(32), torch.empty(32)
        return guarded(lambda: hooked_kernel[(1,)](x, y))


    def subclass_arg():
        x, y = torch.randn(16).as_subclass(Spy), torch.empty(16)
        return guarded(lambda: alias_kernel[(1,)](x, y, 16, BLOCK=16))


    def originals_left():  # a wrapper's __wrapped__ would let a solution launch past the boundary's checks
        import triton.runtime.autotuner as autotuner
        import triton.runtime.interpreter as interpreter
        import triton.runtime.jit as jit

        patched = {"GridExecutor.__call__": interpreter.GridExecutor.__call__, "JITFunction.run": jit.JITFunction.run,
                   "Autotuner.run": autotuner.Autotuner.run}  # fmt: skip
        return sorted(name for name, fn in patched.items() if hasattr(fn, "__wrapped__"))


    report = {"patches": patches}
    cases = (float_arg, libdevice_calls, bf16, fp8, aliases, oob, one_launch, body_torch, hook_torch, subclass_arg,
             originals_left)  # fmt: skip
    for case in cases:
        try:
            report[case.__name__] = {"value": case()}
        except Exception as exc:
            report[case.__name__] = {"error": f"{type(exc).__name__}: {exc}"[:500]}
    print("REPORT" + json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def report():
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "REPORT" in proc.stdout, proc.stderr[-3000:]
    return json.loads(proc.stdout.split("REPORT", 1)[1])


def value(report, case):
    entry = report[case]
    assert "error" not in entry, entry["error"]
    return entry["value"]


@pytest.mark.parametrize(
    ("case", "tolerance"),
    [
        ("float_arg", 0.0),  # Python floats arrive as fp32 scalars; the bf16 store rounds to nearest even
        ("libdevice_calls", 1e-5),
        ("bf16", 0.0),  # computed in fp32 and rounded per op, not on raw bf16 bit patterns
        ("fp8", 0.0),  # e4m3 / e5m2 codes and their decoded values, bit-exact with torch
        (
            "aliases",
            0.0,
        ),  # `_max = tl.max`, `import triton.language as tlang`, `from triton.language import program_id`
        ("oob", 0.0),  # masked lanes with wild pointers read nothing and take `other`
    ],
)
def test_production_patterns_compute_what_torch_computes(report, case, tolerance):
    assert value(report, case) <= tolerance


def test_an_interpreted_launch_under_the_guard_counts_once(report):
    assert value(report, "one_launch") == {"refused": None, "launches": 1}


@pytest.mark.parametrize("case", ["body_torch", "hook_torch"])
def test_torch_compute_in_a_kernel_body_or_a_config_pre_hook_is_refused(report, case):
    refused = value(report, case)["refused"]
    assert refused is not None and "aten" in refused  # the torch op itself is named


def test_a_tensor_subclass_argument_is_refused_before_the_launch(report):
    assert value(report, "subclass_arg") == {
        "refused": "a Spy (a torch.Tensor subclass) passed to a Triton kernel: pass plain tensors, "
        "Triton's launch path runs outside the runtime guard",
        "launches": 0,
    }


def test_no_patched_launch_method_keeps_its_original_within_reach(report):
    assert value(report, "originals_left") == []


def test_each_applied_patch_is_named(report):
    assert report["patches"][0].startswith("launch path")
    assert any(p.startswith("interpreter: ") for p in report["patches"])
