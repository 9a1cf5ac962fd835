"""Inputs for topk_rows: LM-head logits [B, V] (bf16 or fp32) and k.

Like a decoder's last-position logits: a per-row offset, Gaussian spread ~2.5 over the vocabulary,
and on every row a handful of boosted tokens (the plausible continuations) well above the rest. In
bf16 (8 significant bits) many logits are exactly equal, also among the top k, so the tie rule
(equal values: smaller index first) is exercised on every row.
"""

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    B, V, k = int(params["B"]), int(params["V"]), int(params["k"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)
    logits = 2.5 * torch.randn(B, V, generator=g, device=device) + 2.0 * torch.randn(B, 1, generator=g, device=device)
    n_boost = 8
    cols = torch.randint(0, V, (B, n_boost), generator=g, device=device)
    boost = 4.0 + 8.0 * torch.rand(B, n_boost, generator=g, device=device)
    logits.scatter_add_(1, cols, boost)
    return logits.to(dtype).contiguous(), k
