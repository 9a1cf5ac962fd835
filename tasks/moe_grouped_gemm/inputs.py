"""Inputs for moe_grouped_gemm: routed tokens sorted by expert, the experts' concatenated gate/up weights, offsets.

A router with skewed expert popularity (real MoE routers are far from uniform, even with a balancing loss) assigns
each of the T routed rows (tokens x top-k) to one of E experts; the rows are grouped by expert, so expert e owns the
contiguous rows offsets[e] .. offsets[e+1]-1. Popularity is log-normal (sigma = `skew`): a few experts get several
times the average, some get few or none. With `empty_experts` > 0 that many experts get no rows at all.
X is unit-scale, W is scaled by 1/sqrt(K), so every output has O(1) magnitude.
"""

import math

import torch


def _expert_counts(T: int, E: int, skew: float, empty: int, gen: torch.Generator) -> torch.Tensor:
    popularity = torch.exp(skew * torch.randn(E, generator=gen, device=gen.device))
    if empty:
        popularity[torch.randperm(E, generator=gen, device=gen.device)[:empty]] = 0.0
    choice = torch.multinomial(popularity / popularity.sum(), T, replacement=True, generator=gen)
    return torch.bincount(choice, minlength=E)


def make_inputs(params: dict, seed: int, device) -> tuple:
    T, K, N, E = (int(params[k]) for k in ("T", "K", "N", "E"))
    skew = float(params.get("skew", 0.5))
    empty = int(params.get("empty_experts", 0))
    dtype = getattr(torch, params.get("dtype", "bfloat16"))

    gen = torch.Generator(device=device).manual_seed(seed)
    counts = _expert_counts(T, E, skew, empty, gen)
    offsets = torch.zeros(E + 1, dtype=torch.int32, device=device)
    offsets[1:] = torch.cumsum(counts, 0).to(torch.int32)

    # The weights are up to 1.9 GB: drawn one expert at a time, in the storage dtype (no fp32 copy of them all).
    x = torch.randn(T, K, generator=gen, device=device, dtype=torch.float32).to(dtype)
    w = torch.empty(E, K, N, device=device, dtype=dtype)
    scale = 1.0 / math.sqrt(K)
    for e in range(E):
        w[e] = (torch.randn(K, N, generator=gen, device=device, dtype=torch.float32) * scale).to(dtype)
    return x, w, offsets
