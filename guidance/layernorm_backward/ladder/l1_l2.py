"""Ladder rung 2: l1 + the L2 items.

- L2.1: one pass over memory. The program that computes a row's dx also adds that row's dy * xhat and dy
  into two fp32 [BLOCK_N] accumulators held in registers, so x and dy cross HBM once (6 bytes per element:
  read x, dy; write dx) instead of twice.
- L2.2: a persistent grid of P ~ 2 programs per SM, each owning the rows pid, pid + P, ...; each writes one
  row of partials at the end (P x hidden fp32, ~2% extra traffic), and a second small kernel sums the P
  partial rows per column in a fixed order. No atomics, deterministic.
What the L3 items add on top (expert.py): warps and programs per SM sized from the register budget,
several short rows per tile, the next row's loads issued before the current row is reduced, cache hints.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ln_bwd_rows_kernel(
    x_ptr,
    dy_ptr,
    w_ptr,
    mean_ptr,
    rstd_ptr,
    dx_ptr,
    dw_part_ptr,
    db_part_ptr,
    n_rows,
    n_cols,
    stride_xm,
    stride_dym,
    stride_dxm,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    # an int64 start makes the loop index (and so row * stride) 64-bit on the GPU
    first_row = pid.to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    dw_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    db_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for row64 in range(first_row, n_rows, num_progs):
        mean = tl.load(mean_ptr + row64)
        rstd = tl.load(rstd_ptr + row64)
        x = tl.load(x_ptr + row64 * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row64 * stride_dym + cols, mask=mask, other=0.0).to(tl.float32)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        g = dy * w
        c1 = tl.sum(g * xhat, axis=0) / n_cols
        c2 = tl.sum(g, axis=0) / n_cols
        dx = (g - xhat * c1 - c2) * rstd
        tl.store(dx_ptr + row64 * stride_dxm + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        dw_acc += dy * xhat
        db_acc += dy
    tl.store(dw_part_ptr + pid * n_cols + cols, dw_acc, mask=mask)
    tl.store(db_part_ptr + pid * n_cols + cols, db_acc, mask=mask)


@triton.jit
def _column_sum_kernel(
    dw_part_ptr, db_part_ptr, dw_ptr, db_ptr, n_parts, n_cols, BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr
):
    offs_c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_p = tl.arange(0, BLOCK_P)
    mask_c = offs_c < n_cols
    dw = tl.zeros([BLOCK_C], dtype=tl.float32)
    db = tl.zeros([BLOCK_C], dtype=tl.float32)
    for p0 in range(0, n_parts, BLOCK_P):
        rows = p0 + offs_p
        mask = (rows < n_parts)[:, None] & mask_c[None, :]
        offs = rows[:, None] * n_cols + offs_c[None, :]
        dw += tl.sum(tl.load(dw_part_ptr + offs, mask=mask, other=0.0), axis=0)
        db += tl.sum(tl.load(db_part_ptr + offs, mask=mask, other=0.0), axis=0)
    tl.store(dw_ptr + offs_c, dw, mask=mask_c)
    tl.store(db_ptr + offs_c, db, mask=mask_c)


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # interpreter: a small persistent grid still exercises the loop and the partials
    return torch.cuda.get_device_properties(device).multi_processor_count


def solution(x, dy, weight, mean, rstd):
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1
    dx = torch.empty_like(x)
    dweight = torch.empty(n_cols, dtype=torch.float32, device=x.device)
    dbias = torch.empty(n_cols, dtype=torch.float32, device=x.device)

    BLOCK_N = triton.next_power_of_2(n_cols)
    n_parts = max(1, min(n_rows, 2 * _num_sms(x.device)))
    dw_part = torch.zeros((n_parts, n_cols), dtype=torch.float32, device=x.device)
    db_part = torch.zeros((n_parts, n_cols), dtype=torch.float32, device=x.device)
    _ln_bwd_rows_kernel[(n_parts,)](
        x,
        dy,
        weight,
        mean,
        rstd,
        dx,
        dw_part,
        db_part,
        n_rows,
        n_cols,
        x.stride(0),
        dy.stride(0),
        dx.stride(0),
        BLOCK_N=BLOCK_N,
        num_warps=8,
    )
    _column_sum_kernel[(triton.cdiv(n_cols, 64),)](
        dw_part, db_part, dweight, dbias, n_parts, n_cols, BLOCK_P=32, BLOCK_C=64, num_warps=4
    )
    return dx, dweight, dbias
