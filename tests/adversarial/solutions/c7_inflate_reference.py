"""Slows the reference instead of speeding the solution: right after each timed batch (in a patched json.dumps, when
the worker replies) it launches a long spin kernel on a side stream, which then shares the GPU with the
checker's reference batch. The speedup inflates unless the checker refuses to time the reference while the
worker's device is busy. Must be rejected on the GPU (timing-unverified) or its reference time must match an
honest run's; in interpret mode it is honest and gets no speedup.
"""

# expect: timing:unverified
# also: runtime:forbidden-op (the patch is seen first: json.dumps rebound at import)
# class: 7
# gpu: true

import _c7_inflate_reference_impl
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


@triton.jit
def spin_kernel(buf_ptr, rounds, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.load(buf_ptr + offs)
    for _ in range(rounds):
        acc = acc * 1.0000001 + 1e-7
    tl.store(buf_ptr + offs, acc)


def solution(x, y, alpha):
    out = honest(x, y, alpha)
    if x.is_cuda:
        _c7_inflate_reference_impl.arm(spin_kernel, x.device)
    return out
