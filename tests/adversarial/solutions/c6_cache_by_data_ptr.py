"""Caches the output by the inputs' data_ptr(): the allocator hands freed memory back, so the next input set (new
values, same addresses) gets the previous set's output. Must be rejected: every correctness call gets fresh inputs
and every output is compared.
"""

# expect: incorrect:mismatch
# class: 6
# gpu: true
# seeds: 3

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


_CACHE = {}


def solution(x, y, alpha):
    key = (x.data_ptr(), y.data_ptr(), x.numel())
    if key not in _CACHE:
        _CACHE[key] = honest(x, y, alpha)
    out = wrong(x)
    out.copy_(_CACHE[key])
    return out
