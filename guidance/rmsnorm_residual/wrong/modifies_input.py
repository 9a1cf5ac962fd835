"""Wrong: writes the new residual stream h in place into `residual` and returns that tensor as h.

This is the API shape of vLLM's fused_add_rms_norm (residual is updated in place, saving one
allocation), and the values it returns are correct. But this task's contract is that inputs are left
unchanged and h is a new tensor, so the harness sees `residual` modified after the call.
"""
# expect: incorrect:input-modified

import torch
import triton
import triton.language as tl


@triton.jit
def _add_rmsnorm_inplace_kernel(
    x_ptr,
    res_ptr,
    w_ptr,
    y_ptr,
    n_cols,
    eps,
    stride_xm,
    stride_rm,
    stride_ym,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0).to(tl.int64)
    offs_n = tl.arange(0, BLOCK_N)
    mask = offs_n < n_cols
    x = tl.load(x_ptr + pid_m * stride_xm + offs_n, mask=mask, other=0.0)
    r = tl.load(res_ptr + pid_m * stride_rm + offs_n, mask=mask, other=0.0)
    h = (x.to(tl.float32) + r.to(tl.float32)).to(res_ptr.dtype.element_ty)
    # the new residual stream overwrites the old one: this is the defect
    tl.store(res_ptr + pid_m * stride_rm + offs_n, h, mask=mask)
    hf = h.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(hf * hf, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + offs_n, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + pid_m * stride_ym + offs_n, (hf * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def solution(x, residual, weight, eps):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_N = triton.next_power_of_2(n_cols)
    _add_rmsnorm_inplace_kernel[(n_rows,)](
        x,
        residual,
        weight,
        y,
        n_cols,
        float(eps),
        x.stride(0),
        residual.stride(0),
        y.stride(0),
        BLOCK_N=BLOCK_N,
        num_warps=8 if BLOCK_N >= 4096 else 4,
    )
    return y, residual
