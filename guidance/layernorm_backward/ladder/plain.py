"""Ladder rung 0 (no guidance): the direct port of the reference, one kernel per kind of reduction.

- dx: one program per row, walking the row in BLOCK_N-column chunks twice: the first sweep accumulates
  sum(g * xhat) and sum(g), the second recomputes xhat and g and writes dx. x and dy are read twice per row
  (the second time mostly from L2).
- dweight, dbias: a separate column-sum kernel, one program per BLOCK_C-column strip, summing dy * xhat and
  dy down all rows; it reads x and dy a third time.
Traffic: ~10 bytes per element (x and dy twice, dx once) instead of 6, and the column kernel has only
hidden / BLOCK_C programs, each walking every row.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _dx_kernel(
    x_ptr, dy_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, n_cols, stride_xm, stride_dym, stride_dxm, BLOCK_N: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    sum_gx = tl.zeros([BLOCK_N], dtype=tl.float32)
    sum_g = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_dym + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        g = dy * w
        sum_gx += g * xhat
        sum_g += g
    c1 = tl.sum(sum_gx, axis=0) / n_cols
    c2 = tl.sum(sum_g, axis=0) / n_cols
    for off in range(0, n_cols, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_dym + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        xhat = (x - mean) * rstd
        dx = (dy * w - xhat * c1 - c2) * rstd
        tl.store(dx_ptr + row * stride_dxm + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _dw_db_kernel(
    x_ptr,
    dy_ptr,
    mean_ptr,
    rstd_ptr,
    dw_ptr,
    db_ptr,
    n_rows,
    n_cols,
    stride_xm,
    stride_dym,
    BLOCK_M: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask_c = cols < n_cols
    dw = tl.zeros([BLOCK_C], dtype=tl.float32)
    db = tl.zeros([BLOCK_C], dtype=tl.float32)
    for m0 in range(0, n_rows, BLOCK_M):
        rows = (m0 + tl.arange(0, BLOCK_M)).to(tl.int64)
        mask_m = rows < n_rows
        mask = mask_m[:, None] & mask_c[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + rows[:, None] * stride_dym + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        mean = tl.load(mean_ptr + rows, mask=mask_m, other=0.0)
        rstd = tl.load(rstd_ptr + rows, mask=mask_m, other=0.0)
        xhat = (x - mean[:, None]) * rstd[:, None]
        dw += tl.sum(dy * xhat, axis=0)
        db += tl.sum(dy, axis=0)
    tl.store(dw_ptr + cols, dw, mask=mask_c)
    tl.store(db_ptr + cols, db, mask=mask_c)


def solution(x, dy, weight, mean, rstd):
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1
    dx = torch.empty_like(x)
    dweight = torch.empty(n_cols, dtype=torch.float32, device=x.device)
    dbias = torch.empty(n_cols, dtype=torch.float32, device=x.device)
    BLOCK_N = min(1024, triton.next_power_of_2(n_cols))
    _dx_kernel[(n_rows,)](
        x, dy, weight, mean, rstd, dx, n_cols, x.stride(0), dy.stride(0), dx.stride(0), BLOCK_N=BLOCK_N, num_warps=4
    )
    BLOCK_M, BLOCK_C = 32, 128
    _dw_db_kernel[(triton.cdiv(n_cols, BLOCK_C),)](
        x, dy, mean, rstd, dweight, dbias, n_rows, n_cols, x.stride(0), dy.stride(0), BLOCK_M=BLOCK_M, BLOCK_C=BLOCK_C
    )
    return dx, dweight, dbias
