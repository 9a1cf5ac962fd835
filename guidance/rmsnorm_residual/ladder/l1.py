"""Ladder rung 1 (plain + L1.1, L1.2): the add and the norm fused into one kernel, one program per row.

h = bf16(x + residual);  y = bf16(h * rsqrt(mean(h^2) + eps) * weight)

Over plain.py:
- L1.1: one kernel does everything. It loads x and residual, adds them in fp32, rounds the sum to
  bf16 and stores it as h, then squares that *rounded* h, reduces it once in fp32 and scales by
  tl.rsqrt; y is cast to bf16 once at the store. h is never read back from memory.
- L1.2: the row block is next_power_of_2(hidden), every load and store masked with offs_n < hidden,
  masked lanes loaded as 0 and the mean taken over hidden, not BLOCK_N. plain.py's norm kernel
  already had to do this to be correct, so this item adds nothing measurable here; the step from
  plain is the fusion (10 -> 8 bytes per element, two launches -> one).

Because the row block covers the whole row, this rung already reads and writes each byte once (the
traffic L2.1 asks for). It keeps plain's launch shape (grid = rows, the tutorials' warp heuristic where
the expert tunes warps in L3) and has no multi-row tiles (L2.3).
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
    n_cols,
    eps,
    stride_xm,
    stride_rm,
    stride_hm,
    stride_ym,
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    offs_n = tl.arange(0, BLOCK_N)
    mask = offs_n < n_cols

    # read x and residual once: 4 bytes / element
    x = tl.load(x_ptr + row * stride_xm + offs_n, mask=mask, other=0.0)
    r = tl.load(res_ptr + row * stride_rm + offs_n, mask=mask, other=0.0)
    h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
    tl.store(h_ptr + row * stride_hm + offs_n, h, mask=mask)

    # statistics of the rounded h, one fp32 reduction; masked lanes are 0, the divisor is hidden
    hf = h.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(hf * hf, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + offs_n, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride_ym + offs_n, (hf * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


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
    num_warps = min(max(block_n // 256, 1), 8)
    _add_rmsnorm_kernel[(n_rows,)](
        x,
        residual,
        weight,
        h,
        y,
        n_cols,
        float(eps),
        x.stride(0),
        residual.stride(0),
        h.stride(0),
        y.stride(0),
        BLOCK_N=block_n,
        num_warps=num_warps,
    )
    return y, h
