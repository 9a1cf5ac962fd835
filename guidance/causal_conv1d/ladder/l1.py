"""Ladder rung 1 (plain + L1.1, L1.2): one fused kernel, direct form, causality by masks; one time step per program.

y[b, t, c] = act(bias[c] + sum_{j < W} weight[c, j] * x[b, t - (W - 1) + j, c]),  x = 0 before t = 0.

Over plain.py:
- L1.1: the taps (W fp32 vectors) and the bias are loaded once per program, the fp32 accumulator starts at the
  bias, the W multiply-adds are an unrolled tl.static_range loop, and SiLU (exp2 form) is applied to the
  accumulator before the single bf16 store. No fp32 scratch tensor, no second pass for bias and activation.
- L1.2: tap j reads time t - (W - 1) + j of the same sequence through the mask src_t >= 0 (other = 0), so the
  padded copy of x is gone; the batch is its own grid axis, so no history crosses sequences.

Expected on an H200: x is read from HBM once (the W shifted rows come from L2) and y written once: ~4 bytes per
element instead of ~16, one launch instead of three. It keeps plain's launch shape (one program per (t, b) row of
all channels), so each row of x is fetched from L2 by W different programs -- the tile with its halo is L2.1.
"""

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _causal_conv1d_row_kernel(
    x_ptr, w_ptr, b_ptr, y_ptr, T, C, stride_xb, stride_xt, stride_yb, stride_yt, stride_wc,
    W: tl.constexpr, SILU: tl.constexpr, BLOCK_C: tl.constexpr,
):  # fmt: skip
    t = tl.program_id(0)
    b = tl.program_id(1)
    offs_c = tl.arange(0, BLOCK_C)
    mask_c = offs_c < C
    acc = tl.load(b_ptr + offs_c, mask=mask_c, other=0.0).to(tl.float32)
    for j in tl.static_range(W):
        w_j = tl.load(w_ptr + offs_c * stride_wc + j, mask=mask_c, other=0.0).to(tl.float32)
        src_t = t - (W - 1) + j
        # causal: times before the start of this sequence read as zeros
        x_j = tl.load(x_ptr + b * stride_xb + src_t * stride_xt + offs_c, mask=mask_c & (src_t >= 0), other=0.0)
        acc += x_j.to(tl.float32) * w_j
    if SILU:
        acc = acc / (1.0 + tl.exp2(-acc * _LOG2E))
    tl.store(y_ptr + b * stride_yb + t * stride_yt + offs_c, acc.to(y_ptr.dtype.element_ty), mask=mask_c)


def solution(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    assert x.dim() == 3 and weight.dim() == 2 and bias.dim() == 1
    B, T, C = x.shape
    assert x.stride(2) == 1 and weight.stride(1) == 1, "channel-last x and [C, W] weight expected"
    W = weight.shape[1]
    y = torch.empty((B, T, C), dtype=x.dtype, device=x.device)
    if B == 0 or T == 0 or C == 0:
        return y
    _causal_conv1d_row_kernel[(T, B)](
        x, weight, bias, y, T, C, x.stride(0), x.stride(1), y.stride(0), y.stride(1), weight.stride(0),
        W=W, SILU=bool(silu), BLOCK_C=triton.next_power_of_2(C),
    )  # fmt: skip
    return y
