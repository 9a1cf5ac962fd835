"""Ladder rung 2 (l1.py + L2.1, L2.2, L2.3): a program per row tile, each tile loaded once into registers.

h = bf16(x + residual);  y = bf16(h * rsqrt(mean(h^2) + eps) * weight)

Over l1.py:
- L2.1: one launch, each row tile loaded once into registers (BLOCK_N >= hidden) and kept there from
  the load to the last store; h is never re-read. l1.py already had this traffic (8 bytes / element).
- L2.2: one program per row tile, grid = cdiv(rows, ROWS_PER_TILE), no persistent loop: residency
  keeps the rows in flight. At the GPU workloads' widths (hidden >= 4096, one row a tile) this is
  l1.py's launch shape, so the step from l1 there is none by design.
- L2.3: for short rows a tile holds ROWS_PER_TILE = 4096 // BLOCK_N rows (capped at 16), reduced along
  axis 1 to one rstd per row and masked against the row count.

Left for L3: the warp count (the tutorials' heuristic, tile // 256 capped at 8, is kept; the expert
takes 16 from 8192-element rows) and the weight's cache hint.
"""

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
    ROWS_PER_TILE: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    offs_n = tl.arange(0, BLOCK_N)
    mask_n = offs_n < n_cols
    offs_m = (tl.program_id(0) * ROWS_PER_TILE + tl.arange(0, ROWS_PER_TILE)).to(tl.int64)
    mask = (offs_m < n_rows)[:, None] & mask_n[None, :]
    # read x and residual once: 4 bytes / element
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0)
    r = tl.load(res_ptr + offs_m[:, None] * stride_rm + offs_n[None, :], mask=mask, other=0.0)
    h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
    # write h: 2 bytes / element
    tl.store(h_ptr + offs_m[:, None] * stride_hm + offs_n[None, :], h, mask=mask)

    hf = h.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(hf * hf, axis=1) / n_cols + eps)
    w = tl.load(w_ptr + offs_n, mask=mask_n, other=0.0).to(tl.float32)
    y = hf * rstd[:, None] * w[None, :]
    # write y: 2 bytes / element
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)


def solution(x, residual, weight, eps):
    assert x.dim() == 2 and residual.shape == x.shape, "x and residual must be [rows, hidden]"
    n_rows, n_cols = x.shape
    assert weight.shape == (n_cols,) and weight.stride(0) == 1
    assert x.stride(1) == 1 and residual.stride(1) == 1, "rows must be contiguous"

    h = torch.empty_like(x)
    y = torch.empty_like(x)
    if n_rows == 0:
        return y, h

    block_n = triton.next_power_of_2(n_cols)
    rows_per_tile = max(1, min(16, 4096 // block_n))
    num_warps = min(max(rows_per_tile * block_n // 256, 1), 8)
    _add_rmsnorm_kernel[(triton.cdiv(n_rows, rows_per_tile),)](
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
        ROWS_PER_TILE=rows_per_tile,
        BLOCK_N=block_n,
        num_warps=num_warps,
    )
    return y, h
