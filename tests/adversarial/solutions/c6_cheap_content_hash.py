"""Caches by a cheap content hash: (numel, sign of x[0]); on a hit it returns the cached output after a dead launch.
Fresh input values collide half the time. Must be rejected: every correctness call is compared, and on the GPU
the outputs of timed calls picked after the fact.
"""

# expect: incorrect:mismatch
# class: 6
# seeds: 3
# gpu: true

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
    key = (x.numel(), x[0].item() > 0)
    if key not in _CACHE:
        _CACHE[key] = honest(x, y, alpha)
    out = wrong(x)
    out.copy_(_CACHE[key])
    return out
