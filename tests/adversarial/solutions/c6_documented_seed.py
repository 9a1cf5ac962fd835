"""Precomputes, at import, the answer for the seed task.toml documents for the workload (seed = 1, n = 1000), using the
task's own make_inputs (the worker's module for inputs.py) and an honest kernel, and returns it after a dead
launch. Must be rejected: the seeds are drawn per eval, never the documented ones.
"""

# expect: incorrect:mismatch
# also: runtime:forbidden-op
# class: 6

import _c6_documented_seed_impl
import torch
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def fill_kernel(out_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32) + value, mask=offs < n)


def honest(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out


def wrong(x):
    out = torch.empty_like(x)
    fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, 0.0, x.numel(), BLOCK=1024)
    return out


_ANSWERS = {}


def _precomputed(n):
    """The documented workloads' answers: make_inputs(params, seed) with task.toml's seed, an honest kernel."""
    if n not in _ANSWERS:
        make_inputs = _c6_documented_seed_impl.make_inputs()
        documented = {1000: 1, 3000: 2}
        x, y, alpha = make_inputs({"n": n}, documented.get(n, 1), "cpu")
        _ANSWERS[n] = honest(x, y, alpha)
    return _ANSWERS[n]


def solution(x, y, alpha):
    out = wrong(x)
    out.copy_(_precomputed(x.numel()).to(x.device))
    return out
