"""Inputs for causal_conv1d: Mamba's short depthwise convolution over a batch of sequences, channel-last.

x is [B, T, C] bf16, contiguous with channels innermost: the layout the in_proj GEMM produces (tokens x features)
and that Mamba-2 hands to causal_conv1d_fn (a transposed, channel-last view). weight [C, W] and bias [C] follow
PyTorch's Conv1d default init for a depthwise filter (uniform in +-1/sqrt(W)), as Mamba's conv1d does; x is the
unit-scale in_proj output.
"""

import math

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    B, T, C, W = (int(params[k]) for k in ("B", "T", "C", "W"))
    silu = bool(params.get("silu", True))
    dtype = getattr(torch, params.get("dtype", "bfloat16"))
    gen = torch.Generator(device=device).manual_seed(seed)
    bound = 1.0 / math.sqrt(W)
    x = torch.randn(B, T, C, generator=gen, device=device, dtype=torch.float32).to(dtype)
    weight = ((torch.rand(C, W, generator=gen, device=device) * 2 - 1) * bound).to(dtype)
    bias = ((torch.rand(C, generator=gen, device=device) * 2 - 1) * bound).to(dtype)
    return x, weight, bias, silu
