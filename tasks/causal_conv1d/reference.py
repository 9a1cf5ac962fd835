"""Reference for causal_conv1d, as causal_conv1d's own PyTorch reference (causal_conv1d_ref) writes it.

A depthwise F.conv1d with W-1 zeros of left padding, truncated to the first T outputs, then SiLU. It works on
channel-first [B, C, T] tensors, so the channel-last input is transposed in and out; the math is fp32 with one
rounding to bf16 at the end.
"""

import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    T, C, W = x.shape[1], x.shape[2], weight.shape[1]
    y = F.conv1d(x.transpose(1, 2).float(), weight.float().unsqueeze(1), bias.float(), padding=W - 1, groups=C)
    y = y[..., :T]
    if silu:
        y = F.silu(y)
    return y.transpose(1, 2).to(x.dtype).contiguous()
