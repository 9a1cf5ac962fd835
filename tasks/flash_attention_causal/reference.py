"""Causal self-attention forward, written out the way a PyTorch user checks an attention kernel.

Upcast to fp32, compute the [B, H, S, S] scores, mask the future with -inf, softmax, weight the
values, round to the input dtype: the `attention_ref(..., upcast=True)` of FlashAttention's tests.
"""

import math

import torch


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    S, D = q.shape[-2], q.shape[-1]
    scores = torch.matmul(q.float(), k.float().transpose(-2, -1)) * (1.0 / math.sqrt(D))
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu_(1)
    scores.masked_fill_(future, float("-inf"))
    p = torch.softmax(scores, dim=-1)
    return torch.matmul(p, v.float()).to(q.dtype)
