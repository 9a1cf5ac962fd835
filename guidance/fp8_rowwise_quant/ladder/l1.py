"""Ladder rung 1 (plain + L1.1, L1.2): the maximum and the quantisation fused; one division per row.

scale[m] = max(max_n |x[m, n]|, 1e-12) / 448;   q[m, n] = e4m3(clamp(x[m, n] * (448 / amax), -448, 448))

Over plain.py:
- L1.1: one kernel, one program per row. The row is loaded once as a [next_power_of_2(N)] tile, its absmax
  reduced from those registers, then the same values are scaled, converted and stored, and the program writes the
  row's scale. x is read from HBM once: 2 bytes per element instead of 4, one launch instead of two.
- L1.2: the zero-row guard and the division happen once per row (inv = 448 / max(amax, 1e-12)); every element is
  multiplied by inv and clamped to +-448 before the encoding.

Not yet L2: one row per program whatever N (short rows give tiny programs), and the whole row is one tile at the
default 4 warps however long it is (a 28672-column row is 224 fp32 values per thread: registers spill, L2.1's
budget and L2.2's two-sweep path are not applied). The e4m3 encoding is plain's integer rounding (L3.2 is the
hardware conversion).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _e4m3_bits(y):
    """fp32 values in [-448, 448] -> float8_e4m3fn codes as uint8, rounding to nearest even on the fp32 bits."""
    a = tl.abs(y)
    bits = a.to(tl.uint32, bitcast=True)
    lsb = (bits >> 20) & 1
    normal = ((bits + 0x7FFFF + lsb) >> 20).to(tl.int32) - (120 << 3)
    sub = ((a * 512.0 + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(a < 0.015625, sub, normal)
    return tl.where(y < 0, code | 0x80, code).to(tl.uint8)


@triton.jit
def _quant_row_kernel(x_ptr, q_ptr, scale_ptr, N, stride_xm, stride_qm, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_xm + offs, mask=mask, other=0.0).to(tl.float32)  # read once
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12)
    inv = 448.0 / amax  # the row's only division
    y = tl.clamp(x * inv, -448.0, 448.0)
    tl.store(q_ptr + row * stride_qm + offs, _e4m3_bits(y), mask=mask)
    tl.store(scale_ptr + row, amax / 448.0)


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dim() == 2 and x.stride(1) == 1, "x must be [M, N] with contiguous rows"
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M == 0 or N == 0:
        return q, scale
    _quant_row_kernel[(M,)](x, q, scale, N, x.stride(0), q.stride(0), BLOCK_N=triton.next_power_of_2(N))
    return q, scale
