"""Imports the runtime guard's own suspended() (the context Triton's launch path runs in) and computes with plain
torch inside it. Must be rejected: only the harness's code may suspend the guard.
"""

# expect: runtime:forbidden-op
# also: runtime:refused  (importing the worker's own package is refused to the solution)
# class: 2

import torch
import triton
import triton.language as tl
from solution_side.guard import suspended


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


def solution(x, y, alpha):
    out = wrong(x)
    with suspended():
        out.copy_(x * alpha + y)
    return out
