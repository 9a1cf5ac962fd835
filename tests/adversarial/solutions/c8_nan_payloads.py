"""scale_add: where |alpha * x + y| > 2 the kernel stores a quiet NaN with a payload of its own (0x7FC0BEEF), neither
the harness's poison nor a value: a comparison that treated NaN leniently, or compared bit patterns as integers
with a tolerance, would pass it. Must be rejected: NaN where the reference is finite.
"""

# expect: incorrect:nonfinite
# also: incorrect:mismatch
# class: 8

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
def nan_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    bits = v.to(tl.int32, bitcast=True)
    bits = tl.where(tl.abs(v) > 2.0, 0x7FC0BEEF, bits)
    tl.store(out_ptr + offs, bits.to(tl.float32, bitcast=True), mask=mask)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    nan_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out
