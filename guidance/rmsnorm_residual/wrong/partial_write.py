"""Wrong: each program handles ROWS_PER_PROG rows, but the grid is rows // ROWS_PER_PROG.

The integer division drops the last partial block of rows, so when the row count is not a multiple
of ROWS_PER_PROG (5 rows in the `tiny-ragged` workload) the last rows of y and h are never written.
Every workload with a row count divisible by 4 passes, which is how this bug survives testing.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def _add_rmsnorm_kernel(
    x_ptr,
    res_ptr,
    w_ptr,
    h_ptr,
    y_ptr,
    n_rows,
    n_cols,
    eps,
    stride_xm,
    stride_rm,
    stride_hm,
    stride_ym,
    ROWS_PER_PROG: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    offs_m = (pid * ROWS_PER_PROG + tl.arange(0, ROWS_PER_PROG)).to(tl.int64)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m < n_rows)[:, None] & (offs_n < n_cols)[None, :]
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0)
    r = tl.load(res_ptr + offs_m[:, None] * stride_rm + offs_n[None, :], mask=mask, other=0.0)
    h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
    tl.store(h_ptr + offs_m[:, None] * stride_hm + offs_n[None, :], h, mask=mask)
    hf = h.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(hf * hf, axis=1) / n_cols + eps)
    w = tl.load(w_ptr + offs_n, mask=offs_n < n_cols, other=0.0).to(tl.float32)
    y = hf * rstd[:, None] * w[None, :]
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)


def solution(x, residual, weight, eps):
    n_rows, n_cols = x.shape
    h = torch.empty_like(x)
    y = torch.empty_like(x)
    ROWS_PER_PROG = 4
    BLOCK_N = triton.next_power_of_2(n_cols)
    grid = (n_rows // ROWS_PER_PROG,)  # the defect: should be triton.cdiv(n_rows, ROWS_PER_PROG)
    _add_rmsnorm_kernel[grid](
        x,
        residual,
        weight,
        h,
        y,
        n_rows,
        n_cols,
        float(eps),
        x.stride(0),
        residual.stride(0),
        h.stride(0),
        y.stride(0),
        ROWS_PER_PROG=ROWS_PER_PROG,
        BLOCK_N=BLOCK_N,
        num_warps=16 if BLOCK_N >= 8192 else 8,
    )
    return y, h
