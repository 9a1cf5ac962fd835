"""Ladder rung 0 (plain): one program per row of A, one nonzero per step. No guidance.

Y[i, :] = sum_{p in row_ptr[i] .. row_ptr[i+1]} values[p] * X[col_idx[p], :]

Program (i, feature block) walks row i's nonzeros one at a time: a scalar load of the column id and the value,
then the gather of that X row (BLOCK_N = all features, up to 256) and an fp32 multiply-add into a register row,
stored once at the end (an empty row stores zeros). Every row gets its own program, whatever its length, so with
power-law degrees the programs holding the few rows of thousands of entries run hundreds of times longer than
the rest and the launch waits for them; each step is a dependent chain (col id -> X row -> FMA) with one gather in
flight.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _spmm_row_kernel(row_ptr_ptr, col_ptr, val_ptr, x_ptr, y_ptr, n, stride_xk, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < n
    start = tl.load(row_ptr_ptr + row)
    end = tl.load(row_ptr_ptr + row + 1)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for p in range(start, end):
        col = tl.load(col_ptr + p)
        val = tl.load(val_ptr + p)
        acc += val * tl.load(x_ptr + col * stride_xk + offs_n, mask=mask_n, other=0.0)
    tl.store(y_ptr + row * stride_ym + offs_n, acc, mask=mask_n)


def solution(row_ptr, col_idx, values, x):
    assert row_ptr.dim() == 1 and col_idx.dim() == 1 and values.shape == col_idx.shape
    assert x.dim() == 2 and x.stride(1) == 1, "rows of X must be contiguous"
    m = row_ptr.numel() - 1
    n = x.shape[1]
    y = torch.empty((m, n), dtype=torch.float32, device=x.device)
    if m == 0 or n == 0:
        return y
    block_n = min(triton.next_power_of_2(n), 256)
    _spmm_row_kernel[(m, triton.cdiv(n, block_n))](
        row_ptr, col_idx, values, x, y, n, x.stride(0), y.stride(0), BLOCK_N=block_n
    )
    return y
