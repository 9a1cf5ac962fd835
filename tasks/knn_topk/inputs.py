"""Inputs for knn_topk: integer-valued queries Q [M, D] and keys K [N, D], stored as fp16 or fp32.

The vectors imitate real search data whose entries are small integers: SIFT descriptors (`kind =
"sift"`, entries in [0, 255]) or scalar-quantised embeddings (`kind = "sq"`, entries in [-63, 63]).
Keys are drawn around 256 cluster centres; about 1% of them are exact copies of other keys (the
near-duplicate documents every real corpus has), so equal distances occur and the tie rule matters.
Half of the queries are perturbed copies of keys (a close match exists), a few are exact copies
(distance 0), the rest are fresh draws from the clusters.

Every entry is an integer with |x| <= 255, and the ranges keep every squared norm, dot product and
squared distance below 2^24 (D * 255^2 for "sift" with D <= 128, 4 * D * 63^2 for "sq" with D <= 1024),
so the distances are exact in fp32 whatever the summation order: see task.md.
"""

import torch

_CLUSTERS = 256
_RANGES = {"sift": (0.0, 255.0), "sq": (-63.0, 63.0)}


def _draw(n: int, centres: torch.Tensor, spread: float, lo: float, hi: float, g: torch.Generator) -> torch.Tensor:
    which = torch.randint(0, centres.shape[0], (n,), generator=g, device=g.device)
    x = centres[which] + spread * torch.randn(n, centres.shape[1], generator=g, device=g.device)
    return x.round_().clamp_(lo, hi)


def make_inputs(params: dict, seed: int, device) -> tuple:
    M, N, D, k = int(params["M"]), int(params["N"]), int(params["D"]), int(params["k"])
    dtype = getattr(torch, params["dtype"])
    lo, hi = _RANGES[params["kind"]]
    g = torch.Generator(device=device).manual_seed(seed)

    if params["kind"] == "sift":  # non-negative, skewed: many small bins, a few large ones
        centres = 60.0 * torch.rand(_CLUSTERS, D, generator=g, device=device) ** 2
        spread = 12.0
    else:
        centres = 18.0 * torch.randn(_CLUSTERS, D, generator=g, device=device)
        spread = 8.0
    keys = _draw(N, centres, spread, lo, hi, g)
    dup = torch.randperm(N, generator=g, device=device)[: max(1, N // 100)]
    keys[dup] = keys[torch.randint(0, N, (dup.numel(),), generator=g, device=device)]

    queries = _draw(M, centres, spread, lo, hi, g)
    near = torch.rand(M, generator=g, device=device) < 0.5
    src = keys[torch.randint(0, N, (M,), generator=g, device=device)]
    noisy = (src + 2.0 * torch.randn(M, D, generator=g, device=device)).round_().clamp_(lo, hi)
    queries = torch.where(near[:, None], noisy, queries)
    exact = torch.rand(M, generator=g, device=device) < 0.05
    queries = torch.where(exact[:, None], src, queries)
    return queries.to(dtype).contiguous(), keys.to(dtype).contiguous(), k
