"""Inputs for embedding_bag: an embedding table, the flat lookup indices, the bag offsets and the mode.

Bag lengths are random (roughly uniform between min_bag and twice the mean) and sum exactly to nnz.
Row popularity follows a power law, as in recommendation traffic (Criteo-style categorical features):
a row id is drawn as floor(rows * u^3), so ~22% of lookups fall in the hottest 1% of rows, then
scattered over the table by a multiplicative hash so hot rows are not adjacent. Table values are
uniform in [-0.1, 0.1] (trained embeddings are small), never all zero.
"""

import torch

_HASH = 2654435761  # prime, coprime to every table size used


def _lengths(num_bags: int, nnz: int, min_bag: int, gen: torch.Generator) -> torch.Tensor:
    spare = nnz - min_bag * num_bags
    assert spare >= 0
    w = torch.rand(num_bags, generator=gen, device=gen.device, dtype=torch.float64)
    lengths = min_bag + torch.floor(w / w.sum() * spare).to(torch.int64)
    short = nnz - int(lengths.sum())  # 0 <= short < num_bags
    lengths[torch.randperm(num_bags, generator=gen, device=gen.device)[:short]] += 1
    if min_bag == 0 and num_bags > 1:  # an empty bag on every seed, not only on lucky ones: its row must be zero
        i = int(torch.randint(0, num_bags, (1,), generator=gen, device=gen.device))
        lengths[(i + 1) % num_bags] += lengths[i].clone()
        lengths[i] = 0
    return lengths


def make_inputs(params: dict, seed: int, device) -> tuple:
    num_rows = int(params["num_rows"])
    dim = int(params["dim"])
    num_bags = int(params["num_bags"])
    nnz = int(params["nnz"])
    min_bag = int(params.get("min_bag", 1))
    mode = params.get("mode", "sum")
    dtype = getattr(torch, params.get("dtype", "float32"))
    assert mode in ("sum", "mean") and num_rows % _HASH != 0

    gen = torch.Generator(device=device).manual_seed(seed)
    weight = (torch.rand(num_rows, dim, generator=gen, device=device) * 0.2 - 0.1).to(dtype)
    lengths = _lengths(num_bags, nnz, min_bag, gen)
    offsets = torch.zeros(num_bags + 1, dtype=torch.int64, device=device)
    offsets[1:] = torch.cumsum(lengths, 0)
    u = torch.rand(nnz, generator=gen, device=device, dtype=torch.float64)
    hot = torch.floor(num_rows * u**3).to(torch.int64)
    indices = (hot.clamp_(max=num_rows - 1) * _HASH + 12345) % num_rows
    return weight.contiguous(), indices.contiguous(), offsets, mode
