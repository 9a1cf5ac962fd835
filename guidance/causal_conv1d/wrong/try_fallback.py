"""Wrong: a Triton kernel wrapped in try/except with a PyTorch fallback in the handler.

"Robust" host code: if the kernel fails to compile or launch on some shape, fall back to a shifted-sum in torch.
The harness cannot tell which path produced a given result or a given time, so a try/except around a kernel
launch is rejected statically, whatever the kernel does.
"""
# expect: static:try-fallback

import torch
import triton
import triton.language as tl


@triton.jit
def _conv_kernel(
    x_ptr, w_ptr, b_ptr, y_ptr, T, C, stride_xb, stride_xt, stride_wc,
    W: tl.constexpr, SILU: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr,
):  # fmt: skip
    offs_c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    pid_b = tl.program_id(2).to(tl.int64)
    mask_c = offs_c < C
    acc = tl.zeros((BLOCK_T, BLOCK_C), dtype=tl.float32)
    acc += tl.load(b_ptr + offs_c, mask=mask_c, other=0.0).to(tl.float32)[None, :]
    for j in tl.static_range(W):
        src_t = offs_t - (W - 1) + j
        mask = ((src_t >= 0) & (src_t < T))[:, None] & mask_c[None, :]
        x_j = tl.load(x_ptr + pid_b * stride_xb + src_t[:, None] * stride_xt + offs_c[None, :], mask=mask, other=0.0)
        w_j = tl.load(w_ptr + offs_c * stride_wc + j, mask=mask_c, other=0.0)
        acc += x_j.to(tl.float32) * w_j.to(tl.float32)[None, :]
    if SILU:
        acc = acc / (1.0 + tl.exp(-acc))
    y_ptrs = y_ptr + pid_b * stride_xb + offs_t[:, None] * stride_xt + offs_c[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=(offs_t < T)[:, None] & mask_c[None, :])


def solution(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    B, T, C = x.shape
    W = weight.shape[1]
    y = torch.empty_like(x)
    try:
        grid = (triton.cdiv(C, 128), triton.cdiv(T, 64), B)
        _conv_kernel[grid](
            x, weight, bias, y, T, C, x.stride(0), x.stride(1), weight.stride(0),
            W=W, SILU=bool(silu), BLOCK_T=64, BLOCK_C=128,
        )  # fmt: skip
    except Exception:
        xf = x.float()
        acc = bias.float().expand(B, T, C).clone()
        for j in range(W):
            shift = W - 1 - j
            acc[:, shift:] += xf[:, : T - shift] * weight[:, j].float()
        y = (acc * torch.sigmoid(acc) if silu else acc).to(x.dtype)
    return y
