"""Ladder rung 2 (l1.py + L2.1, L2.2): whole rows held in registers within a budget, short rows packed, long
rows in two sweeps inside one program.

scale[m] = max(max_n |x[m, n]|, 1e-12) / 448;   q[m, n] = e4m3(clamp(x[m, n] * (448 / amax), -448, 448))

Over l1.py:
- L2.1: a program owns whole rows. A row of up to 32768 bf16 values is one register tile of
  BLOCK_N = next_power_of_2(N); short rows (N <= 2048) are packed ROWS to a program as a [ROWS, BLOCK_N] tile
  reduced along axis 1, so each program moves >= 16 KB and the grid is not thousands of tiny programs.
- L2.2: longer rows keep one program per row but sweep it twice in 8192-column chunks (a running elementwise
  maximum reduced once, then the quantisation), the second sweep served from L2; a row is never split across programs.

Expected on an H200: faster than l1.py on short rows (fewer, fuller programs) and on the long rows that spilled
at 4 warps, since this rung runs 8 warps everywhere. Left for L3: warps chosen by row length for 16-byte
per-thread runs without spills, and the hardware e4m3 conversion (the integer encoding here is ~15 ALU
operations per element).
"""

import torch
import triton
import triton.language as tl

_MAX_ROW_ON_CHIP = 32768
_CHUNK = 8192


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
def _quant_rows_kernel(x_ptr, q_ptr, scale_ptr, M, N, stride_xm, stride_qm, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m < M)[:, None] & (offs_n < N)[None, :]
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=1), 1e-12)
    inv = 448.0 / amax
    y = tl.clamp(x * inv[:, None], -448.0, 448.0)
    tl.store(q_ptr + offs_m[:, None] * stride_qm + offs_n[None, :], _e4m3_bits(y), mask=mask)
    tl.store(scale_ptr + offs_m, amax / 448.0, mask=offs_m < M)


@triton.jit
def _quant_long_row_kernel(x_ptr, q_ptr, scale_ptr, N, stride_xm, stride_qm, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, CHUNK)
    running = tl.zeros((CHUNK,), dtype=tl.float32)
    for start in range(0, N, CHUNK):
        x = tl.load(x_ptr + row * stride_xm + start + offs, mask=start + offs < N, other=0.0).to(tl.float32)
        running = tl.maximum(running, tl.abs(x))
    amax = tl.maximum(tl.max(running, axis=0), 1e-12)
    inv = 448.0 / amax
    for start in range(0, N, CHUNK):
        mask = start + offs < N
        x = tl.load(x_ptr + row * stride_xm + start + offs, mask=mask, other=0.0).to(tl.float32)  # from L2
        tl.store(q_ptr + row * stride_qm + start + offs, _e4m3_bits(tl.clamp(x * inv, -448.0, 448.0)), mask=mask)
    tl.store(scale_ptr + row, amax / 448.0)


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dim() == 2 and x.stride(1) == 1, "x must be [M, N] with contiguous rows"
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M == 0 or N == 0:
        return q, scale
    if N <= _MAX_ROW_ON_CHIP:
        block_n = triton.next_power_of_2(N)
        rows = max(1, min(16, 8192 // block_n)) if block_n <= 2048 else 1
        _quant_rows_kernel[(triton.cdiv(M, rows),)](
            x, q, scale, M, N, x.stride(0), q.stride(0), ROWS=rows, BLOCK_N=block_n, num_warps=8
        )
    else:
        _quant_long_row_kernel[(M,)](x, q, scale, N, x.stride(0), q.stride(0), CHUNK=_CHUNK, num_warps=8)
    return q, scale
