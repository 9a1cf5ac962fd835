"""Wrong: divides the sum of squares by the padded block width BLOCK_N instead of hidden.

The masked lanes correctly load 0, so the sum is right, but the mean is taken over
next_power_of_2(hidden) elements. For power-of-two hidden sizes (4096, 8192) this is invisible; for
DeepSeek-V3's 7168 it scales y by sqrt(8192 / 7168) = 1.069 and for the 320-wide interpreter workload
by sqrt(512 / 320) = 1.26, far outside the tolerance.
"""
# expect: incorrect:mismatch

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
    pid_m = tl.program_id(0).to(tl.int64)
    offs_n = tl.arange(0, BLOCK_N)
    mask = offs_n < n_cols
    x = tl.load(x_ptr + pid_m * stride_xm + offs_n, mask=mask, other=0.0, eviction_policy="evict_first")
    r = tl.load(res_ptr + pid_m * stride_rm + offs_n, mask=mask, other=0.0, eviction_policy="evict_first")
    h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
    tl.store(h_ptr + pid_m * stride_hm + offs_n, h, mask=mask)
    hf = h.to(tl.float32)
    mean_sq = tl.sum(hf * hf, axis=0) / BLOCK_N  # the defect: the row has n_cols elements, not BLOCK_N
    rstd = tl.rsqrt(mean_sq + eps)
    w = tl.load(w_ptr + offs_n, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + pid_m * stride_ym + offs_n, (hf * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def solution(x, residual, weight, eps):
    n_rows, n_cols = x.shape
    h = torch.empty_like(x)
    y = torch.empty_like(x)
    BLOCK_N = triton.next_power_of_2(n_cols)
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
        BLOCK_N=BLOCK_N,
        num_warps=16 if BLOCK_N >= 8192 else 8,
    )
    return y, h
