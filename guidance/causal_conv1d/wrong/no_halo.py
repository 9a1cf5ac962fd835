"""Wrong: each time tile starts from zero history instead of reading the W-1 rows before it (the halo).

The causal mask is written against the tile's first row (src_t >= t0) instead of the sequence start (src_t >= 0),
which looks right on a single tile and is the natural slip when "causal padding" is implemented per tile. The first
W-1 outputs of every tile after the first lose up to three taps of history.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _conv_kernel(
    x_ptr, w_ptr, b_ptr, y_ptr, T, C, stride_xb, stride_xt, stride_yb, stride_yt, stride_wc,
    W: tl.constexpr, SILU: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr,
):  # fmt: skip
    offs_c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    t0 = tl.program_id(1) * BLOCK_T
    offs_t = t0 + tl.arange(0, BLOCK_T)
    pid_b = tl.program_id(2).to(tl.int64)
    mask_c = offs_c < C
    acc = tl.zeros((BLOCK_T, BLOCK_C), dtype=tl.float32)
    acc += tl.load(b_ptr + offs_c, mask=mask_c, other=0.0).to(tl.float32)[None, :]
    for j in tl.static_range(W):
        src_t = offs_t - (W - 1) + j
        mask = ((src_t >= t0) & (src_t < T))[:, None] & mask_c[None, :]  # BUG: should be src_t >= 0
        x_j = tl.load(x_ptr + pid_b * stride_xb + src_t[:, None] * stride_xt + offs_c[None, :], mask=mask, other=0.0)
        w_j = tl.load(w_ptr + offs_c * stride_wc + j, mask=mask_c, other=0.0)
        acc += x_j.to(tl.float32) * w_j.to(tl.float32)[None, :]
    if SILU:
        acc = acc / (1.0 + tl.exp(-acc))
    y_ptrs = y_ptr + pid_b * stride_yb + offs_t[:, None] * stride_yt + offs_c[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=(offs_t < T)[:, None] & mask_c[None, :])


def solution(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    B, T, C = x.shape
    y = torch.empty_like(x)
    BLOCK_T, BLOCK_C = 32, 64
    grid = (triton.cdiv(C, BLOCK_C), triton.cdiv(T, BLOCK_T), B)
    _conv_kernel[grid](
        x, weight, bias, y, T, C, x.stride(0), x.stride(1), y.stride(0), y.stride(1), weight.stride(0),
        W=weight.shape[1], SILU=bool(silu), BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C,
    )  # fmt: skip
    return y
