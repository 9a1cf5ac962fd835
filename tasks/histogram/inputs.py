"""Inputs for histogram: integer data in [0, bins) and the bin count.

Two distributions, both far from uniform, as real data is:
- "image": pixel-like values. The array is cut into regions of 4096 elements, each with its own mean
  (anywhere in the range) and a small spread (0.5-5.5% of the range), as smooth image areas are:
  inside a region most values fall in a few percent of the bins.
- "zipf": token ids. Ranks follow Zipf's law (p(r) ~ 1 / (r + 2.7)^1.07, close to the exponent of
  about 1 reported for unigram statistics of natural text); rank r maps to an id near r (a jittered
  order), as BPE vocabularies give frequent tokens low ids, so the hot ids are mostly, not exactly,
  the smallest ones.
"""

import torch

_REGION = 4096


def _image(n: int, bins: int, gen: torch.Generator) -> torch.Tensor:
    n_regions = (n + _REGION - 1) // _REGION
    mean = torch.rand(n_regions, generator=gen, device=gen.device) * bins
    spread = (0.005 + 0.05 * torch.rand(n_regions, generator=gen, device=gen.device)) * bins
    x = torch.randn(n, generator=gen, device=gen.device)
    x.mul_(spread.repeat_interleave(_REGION)[:n]).add_(mean.repeat_interleave(_REGION)[:n])
    return x.round_().clamp_(0, bins - 1).to(torch.int64)


def _zipf(n: int, bins: int, gen: torch.Generator) -> torch.Tensor:
    # inverse CDF of the continuous density ~ (r + q)^-s on [0, bins), floored to a rank
    q, s = 2.7, 1.07
    lo, hi = q ** (1.0 - s), (bins + q) ** (1.0 - s)
    u = torch.rand(n, generator=gen, device=gen.device)  # fp32 is ample: ranks < 2^17
    rank = (lo + u * (hi - lo)).pow_(1.0 / (1.0 - s)).sub_(q).floor_().clamp_(0, bins - 1).to(torch.int64)
    # id of each rank: sort the ranks by a jittered key (each rank moves by a factor of ~e^+-0.5)
    key = (torch.arange(bins, dtype=torch.float64, device=gen.device) + 1.0) * torch.exp(
        0.5 * torch.randn(bins, generator=gen, device=gen.device, dtype=torch.float64)
    )
    id_of_rank = torch.argsort(torch.argsort(key))
    return id_of_rank[rank]


def make_inputs(params: dict, seed: int, device) -> tuple:
    n = int(params["n"])
    bins = int(params["bins"])
    dtype = getattr(torch, params.get("dtype", "int32"))
    dist = params.get("dist", "zipf")
    assert dtype in (torch.uint8, torch.int32) and bins >= 1
    assert dtype != torch.uint8 or bins <= 256

    gen = torch.Generator(device=device).manual_seed(seed)
    x = _image(n, bins, gen) if dist == "image" else _zipf(n, bins, gen)
    return x.to(dtype).contiguous(), bins
