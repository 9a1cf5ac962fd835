"""Wrong: dx and the per-program partials come from Triton, but the second-level sum is torch's .sum(dim=0).

"It is only a small [P, hidden] reduction" -- but it is a reduction outside Triton, and the runtime guard
rejects any aten compute op (aten.sum here) that runs inside solution(). The values would be right.
"""
# expect: runtime:forbidden-op

import torch
import triton
import triton.language as tl


@triton.jit
def _ln_bwd_kernel(
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
    stride_m,
    ROWS_PER_PROG: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    dw_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    db_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for i in range(ROWS_PER_PROG):
        row = pid * ROWS_PER_PROG + i
        m = mask & (row < n_rows)
        mean = tl.load(mean_ptr + row, mask=row < n_rows, other=0.0)
        rstd = tl.load(rstd_ptr + row, mask=row < n_rows, other=0.0)
        x = tl.load(x_ptr + row * stride_m + cols, mask=m, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_m + cols, mask=m, other=0.0).to(tl.float32)
        xhat = tl.where(m, (x - mean) * rstd, 0.0)
        g = dy * w
        c1 = tl.sum(g * xhat, axis=0) / n_cols
        c2 = tl.sum(g, axis=0) / n_cols
        dx = (g - xhat * c1 - c2) * rstd
        tl.store(dx_ptr + row * stride_m + cols, dx.to(dx_ptr.dtype.element_ty), mask=m)
        dw_acc += dy * xhat
        db_acc += dy
    tl.store(dw_part_ptr + pid * n_cols + cols, dw_acc, mask=mask)
    tl.store(db_part_ptr + pid * n_cols + cols, db_acc, mask=mask)


def solution(x, dy, weight, mean, rstd):
    n_rows, n_cols = x.shape
    dx = torch.empty_like(x)
    ROWS_PER_PROG = 32
    n_parts = triton.cdiv(n_rows, ROWS_PER_PROG)
    dw_part = torch.empty((n_parts, n_cols), dtype=torch.float32, device=x.device)
    db_part = torch.empty((n_parts, n_cols), dtype=torch.float32, device=x.device)
    BLOCK_N = triton.next_power_of_2(n_cols)
    _ln_bwd_kernel[(n_parts,)](
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
        ROWS_PER_PROG=ROWS_PER_PROG,
        BLOCK_N=BLOCK_N,
        num_warps=8,
    )
    # the defect: the second level runs in torch
    return dx, dw_part.sum(dim=0), db_part.sum(dim=0)
