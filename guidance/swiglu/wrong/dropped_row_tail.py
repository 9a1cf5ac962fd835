"""Wrong: ROWS rows per program, but the grid is T // ROWS row tiles instead of ceil(T / ROWS).

The last partial tile of rows is never launched. Every workload whose token count is a multiple of ROWS passes
(all the realistic ones), which is how the bug survives; the 5-row interpreter workload has no full tile at all,
so nothing of out is written there.
"""
# expect: runtime:no-launch  (on the 5-row workload its grid is empty: that call runs no kernel at all)

import torch
import triton
import triton.language as tl


@triton.jit
def _swiglu_kernel(x_ptr, out_ptr, T, F, stride_x, stride_o, ROWS: tl.constexpr, BLOCK_F: tl.constexpr):
    offs_t = (tl.program_id(0) * ROWS + tl.arange(0, ROWS)).to(tl.int64)
    offs_f = tl.program_id(1) * BLOCK_F + tl.arange(0, BLOCK_F)
    mask = (offs_t < T)[:, None] & (offs_f < F)[None, :]
    g_ptrs = x_ptr + offs_t[:, None] * stride_x + offs_f[None, :]
    g = tl.load(g_ptrs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(g_ptrs + F, mask=mask, other=0.0).to(tl.float32)
    out = g * u / (1.0 + tl.exp(-g))
    tl.store(out_ptr + offs_t[:, None] * stride_o + offs_f[None, :], out.to(out_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    T, two_f = x.shape
    F = two_f // 2
    out = torch.empty((T, F), dtype=x.dtype, device=x.device)
    ROWS, BLOCK_F = 8, 512
    grid = (T // ROWS, triton.cdiv(F, BLOCK_F))  # the defect: should be triton.cdiv(T, ROWS)
    if grid[0] > 0:
        _swiglu_kernel[grid](x, out, T, F, x.stride(0), out.stride(0), ROWS=ROWS, BLOCK_F=BLOCK_F, num_warps=8)
    return out
