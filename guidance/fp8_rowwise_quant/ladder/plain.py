"""Ladder rung 0 (plain): a row-maximum kernel, then an elementwise quantisation kernel. No guidance.

scale[m] = max(max_n |x[m, n]|, 1e-12) / 448;   q[m, n] = e4m3(clamp(x[m, n] / scale[m], -448, 448))

Kernel 1 is one program per row that sweeps the row in 1024-column chunks, keeps the running maximum of |x| and
writes the scale. Kernel 2 is a 2-D grid of (row, 1024-column block) programs: each reads the row's scale and its
block of x again, divides every element by the scale, clamps and encodes. The e4m3 encoding (round to nearest
even) is done on the fp32 bits with integer operations, on the GPU as well as in the interpreter, whose fp8 cast
is inexact.

Traffic: x is read twice from HBM (4 bytes per element instead of 2), q written once, in two launches; one fp32
division per element.
"""

import torch
import triton
import triton.language as tl

_BLOCK = 1024


@triton.jit
def _e4m3_bits(y):
    """fp32 values in [-448, 448] -> float8_e4m3fn codes as uint8, rounding to nearest even on the fp32 bits."""
    a = tl.abs(y)
    bits = a.to(tl.uint32, bitcast=True)
    # normal range: keep 3 mantissa bits with round-half-even, move the exponent bias from 127 to 7
    lsb = (bits >> 20) & 1
    normal = ((bits + 0x7FFFF + lsb) >> 20).to(tl.int32) - (120 << 3)
    # below 2^-6 the codes are multiples of 2^-9; adding 1.5 * 2^23 rounds half-even to an integer
    sub = ((a * 512.0 + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(a < 0.015625, sub, normal)
    return tl.where(y < 0, code | 0x80, code).to(tl.uint8)


@triton.jit
def _row_scale_kernel(x_ptr, scale_ptr, N, stride_xm, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    amax = 0.0
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * stride_xm + start + offs, mask=start + offs < N, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.max(tl.abs(x), axis=0))
    tl.store(scale_ptr + row, tl.maximum(amax, 1e-12) / 448.0)


@triton.jit
def _quantise_kernel(x_ptr, scale_ptr, q_ptr, N, stride_xm, stride_qm, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    scale = tl.load(scale_ptr + row)
    x = tl.load(x_ptr + row * stride_xm + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.clamp(x / scale, -448.0, 448.0)
    tl.store(q_ptr + row * stride_qm + offs, _e4m3_bits(y), mask=mask)


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dim() == 2 and x.stride(1) == 1, "x must be [M, N] with contiguous rows"
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M == 0 or N == 0:
        return q, scale
    _row_scale_kernel[(M,)](x, scale, N, x.stride(0), BLOCK=_BLOCK)
    _quantise_kernel[(M, triton.cdiv(N, _BLOCK))](x, scale, q, N, x.stride(0), q.stride(0), BLOCK=_BLOCK)
    return q, scale
