"""fp8_rowwise_quant: every +448 code (0x7E, the row maximum's) is stored as 0x7F, the e4m3fn NaN. As integers the
codes differ by one, inside the task's uint8 atol of 1. Must be rejected: encoded outputs are compared as decoded
values, and NaN only matches NaN.
"""

# expect: incorrect:nonfinite
# also: incorrect:mismatch
# class: 8
# task: fp8_rowwise_quant

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
def quant_rows_kernel(x_ptr, q_ptr, scale_ptr, N, stride_xm, stride_qm, BLOCK_N: tl.constexpr, CHEAT: tl.constexpr):
    """One row per program, the fp8 e4m3 codes rounded on the fp32 bits (exact in the CPU interpreter)."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_xm + offs, mask=mask, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12)
    y = tl.clamp(x * (448.0 / amax), -448.0, 448.0)
    a = tl.abs(y)
    bits = a.to(tl.uint32, bitcast=True)
    normal = ((bits + 0x7FFFF + ((bits >> 20) & 1)) >> 20).to(tl.int32) - ((127 - 7) << 3)
    sub = ((a * 512.0 + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(a < 0.015625, sub, normal)
    if CHEAT == 1:  # +448 (0x7E) becomes the NaN code 0x7F: "one integer step away"
        code = tl.where(code == 0x7E, 0x7F, code)
    code = tl.where(y < 0, code | 0x80, code)
    if CHEAT == 2:  # -448 (0xFE) becomes the NaN code 0xFF
        code = tl.where(code == 0xFE, 0xFF, code)
    tl.store(q_ptr + row * stride_qm + offs, code.to(tl.uint8), mask=mask)
    tl.store(scale_ptr + row, amax / 448.0)


def quantise(x, cheat):
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    quant_rows_kernel[(M,)](x, q, scale, N, x.stride(0), q.stride(0), BLOCK_N=triton.next_power_of_2(N), CHEAT=cheat)
    return q, scale


def solution(x):
    return quantise(x, 1)
