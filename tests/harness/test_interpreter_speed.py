"""The interpreter's speed-ups (solution_side/interpreter_speed.py) give the element-by-element interpreter's answers:
tree scans and reductions of the kernel's own combine functions (non-commutative, tuple-valued, integer, reversed,
along either axis, one that branches on its operands), a helper called many times in one launch, dtype lookups.

One child process (TRITON_INTERPRET=1, the harness's patches applied) runs the kernels and reports; CI runs this file
on the pinned Triton and on the newest one.
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
    import numpy as np
    import torch
    import triton
    import triton.language as tl
    import triton.runtime.interpreter as interpreter

    original_dtype = interpreter._get_np_dtype
    from workbench.harness.solution_side import triton_patches

    applied = triton_patches.apply(interpret=True)
    report = {"applied": applied}


    @triton.jit
    def _recurrence(a1, b1, a2, b2):  # h = a * h_prev + b: associative, not commutative
        return a1 * a2, b1 * a2 + b2


    @triton.jit
    def _first_max(v1, i1, v2, i2):  # arg-max, the first index on a tie
        take_left = (v1 > v2) | ((v1 == v2) & (i1 < i2))
        return tl.where(take_left, v1, v2), tl.where(take_left, i1, i2)


    @triton.jit
    def _branching_max(v1, i1, v2, i2):  # legal on the GPU, where a combine function sees scalars
        if v1 >= v2:
            return v1, i1
        else:
            return v2, i2


    @triton.jit
    def _add(x, y):
        return x + y


    @triton.jit
    def scan_kernel(a_ptr, b_ptr, h_ptr, AXIS: tl.constexpr, REVERSE: tl.constexpr, R: tl.constexpr,
                    C: tl.constexpr):
        offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
        a = tl.load(a_ptr + offs)
        b = tl.load(b_ptr + offs)
        _, h = tl.associative_scan((a, b), AXIS, _recurrence, reverse=REVERSE)
        tl.store(h_ptr + offs, h)


    @triton.jit
    def count_kernel(x_ptr, y_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        keep = (tl.load(x_ptr + offs) > 0).to(tl.int32)
        tl.store(y_ptr + offs, tl.associative_scan(keep, 0, _add))


    @triton.jit
    def argmax_kernel(x_ptr, v_ptr, i_ptr, R: tl.constexpr, C: tl.constexpr, BRANCHING: tl.constexpr):
        offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
        x = tl.load(x_ptr + offs)
        idx = tl.broadcast_to(tl.arange(0, C)[None, :], (R, C))
        if BRANCHING:
            v, i = tl.reduce((x, idx), 1, _branching_max)
        else:
            v, i = tl.reduce((x, idx), 1, _first_max)
        tl.store(v_ptr + tl.arange(0, R), v)
        tl.store(i_ptr + tl.arange(0, R), i)


    @triton.jit
    def total_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
        offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
        tl.store(y_ptr, tl.reduce(tl.load(x_ptr + offs), None, _add))
        kept = tl.reduce(tl.load(x_ptr + offs), 0, _add, keep_dims=True)
        tl.store(y_ptr + 1 + tl.arange(0, C)[None, :], kept)


    @triton.jit
    def _step(acc, x):
        return acc * 0.5 + x


    @triton.jit
    def helper_loop_kernel(x_ptr, y_ptr, STEPS: tl.constexpr, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(x_ptr + offs)
        acc = tl.zeros((N,), dtype=tl.float32)
        for _ in range(STEPS):
            acc = _step(acc, x)
        tl.store(y_ptr + offs, acc)


    def sequential_recurrence(a, b, axis, reverse):
        a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
        order = range(a.shape[0] - 1, -1, -1) if reverse else range(a.shape[0])
        h, prev = np.zeros_like(b, dtype=np.float64), None
        for t in order:
            h[t] = b[t] if prev is None else a[t] * h[prev] + b[t]
            prev = t
        return np.moveaxis(h, 0, axis)


    gen = torch.Generator().manual_seed(0)
    R, C = 16, 32
    a = torch.rand(R, C, generator=gen) * 0.9
    b = torch.randn(R, C, generator=gen)
    for axis in (0, 1):
        for reverse in (False, True):
            h = torch.empty(R, C)
            scan_kernel[(1,)](a, b, h, AXIS=axis, REVERSE=reverse, R=R, C=C)
            want = sequential_recurrence(a.double().numpy(), b.double().numpy(), axis, reverse)
            report[f"scan axis={axis} reverse={reverse}"] = float(np.abs(h.double().numpy() - want).max())

    x = torch.randn(256, generator=gen)
    y = torch.empty(256, dtype=torch.int32)
    count_kernel[(1,)](x, y, N=256)
    report["integer scan exact"] = bool(torch.equal(y, torch.cumsum((x > 0).int(), 0).int()))

    ties = torch.randint(0, 4, (R, C), generator=gen).float()  # many ties: the first index must win
    for branching in (False, True):
        v, i = torch.empty(R), torch.empty(R, dtype=torch.int32)
        argmax_kernel[(1,)](ties, v, i, R=R, C=C, BRANCHING=branching)
        first = torch.tensor([int(np.argmax(row)) for row in ties.numpy()])
        same = torch.equal(v, ties.max(1).values) and torch.equal(i.long(), first)
        report[f"argmax branching={branching}"] = bool(same)

    vals = torch.randn(R, C, generator=gen)
    out = torch.empty(1 + C)
    total_kernel[(1,)](vals, out, R=R, C=C)
    report["reduce all"] = abs(float(out[0]) - float(vals.double().sum()))
    report["reduce keep_dims"] = float((out[1:].double() - vals.double().sum(0)).abs().max())

    calls = []
    patch_builtin = interpreter._patch_builtin

    def counting(*args, **kwargs):
        calls.append(1)
        return patch_builtin(*args, **kwargs)

    interpreter._patch_builtin = counting
    xs = torch.randn(64, generator=gen)
    ys = torch.empty(64)
    helper_loop_kernel[(1,)](xs, ys, STEPS=40, N=64)
    want = torch.zeros(64, dtype=torch.float64)
    for _ in range(40):
        want = want * 0.5 + xs.double()
    report["helper loop error"] = float((ys.double() - want).abs().max())
    report["language patchings in a launch of 40 helper calls"] = len(calls)
    interpreter._patch_builtin = patch_builtin

    dtypes = [tl.int1, tl.int8, tl.uint8, tl.int16, tl.int32, tl.uint32, tl.int64, tl.float16, tl.bfloat16, tl.float32,
              tl.float64, tl.float8e4nv, tl.float8e5, tl.pointer_type(tl.float32), tl.block_type(tl.float16, [4]),
              tl.block_type(tl.pointer_type(tl.int8), [8])]
    report["dtype lookups"] = all(interpreter._get_np_dtype(d) == original_dtype(d) for d in dtypes * 2)
    print("REPORT " + json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def report():
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT ")]
    assert lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("REPORT ") :])


def test_each_speedup_is_applied_and_named(report):
    named = {"interpreter: combine functions run over trees of whole blocks",
             "interpreter: the language is patched once per launch", "interpreter: dtype lookups cached"}  # fmt: skip
    assert named <= set(report["applied"])


@pytest.mark.parametrize("case", [f"scan axis={a} reverse={r}" for a in (0, 1) for r in (False, True)])
def test_a_non_commutative_scan_gives_the_sequential_answer(report, case):
    assert report[case] < 1e-5  # fp32 in another order; a wrong order or a dropped lane is O(1)


def test_an_integer_scan_is_exact(report):
    assert report["integer scan exact"]


@pytest.mark.parametrize("branching", [False, True])
def test_a_tuple_reduction_keeps_the_first_index_on_ties(report, branching):
    """The branching combine cannot run over blocks: it runs element by element, and gives the same answer."""
    assert report[f"argmax branching={branching}"]


def test_a_reduction_over_every_axis_and_with_keep_dims(report):
    assert report["reduce all"] < 1e-4 and report["reduce keep_dims"] < 1e-5


def test_a_helper_called_in_a_loop_patches_the_language_once_a_launch(report):
    assert report["helper loop error"] < 1e-5
    # one launch patches triton.language, its tensor, math and core (and libdevice); 40 helper calls re-patching
    # would add at least 3 each
    assert 0 < report["language patchings in a launch of 40 helper calls"] < 20


def test_dtype_lookups_answer_as_the_original(report):
    assert report["dtype lookups"]
