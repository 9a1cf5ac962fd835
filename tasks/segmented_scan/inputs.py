"""Inputs for segmented_scan: decays a, drives b and the offsets of packed variable-length sequences.

Values imitate a gated linear RNN (RG-LRU, Mamba-style selective decay, HGRN): the decay is a sigmoid
of a pre-activation centred at +2, so most a lie in 0.7..0.97 (state remembered for a few to a few tens
of steps) and a few come close to 1; the drive b is standard normal. Sequence lengths are ragged,
drawn log-normally (many short, a few long, as in a packed pre-training or fine-tuning batch), each at
least 1 token, summing exactly to `tokens`. Nothing is zero and every a is strictly inside (0, 1).
"""

import torch


def _lengths(num_seqs: int, tokens: int, sigma: float, gen: torch.Generator) -> torch.Tensor:
    """num_seqs log-normal lengths >= 1 that sum exactly to tokens (order is random, as packed)."""
    weights = torch.exp(sigma * torch.randn(num_seqs, generator=gen, device=gen.device, dtype=torch.float64))
    spare = tokens - num_seqs
    lengths = 1 + torch.floor(weights / weights.sum() * spare).to(torch.int64)
    short = tokens - int(lengths.sum())  # 0 <= short < num_seqs after flooring
    lengths[torch.randperm(num_seqs, generator=gen, device=gen.device)[:short]] += 1
    return lengths


def make_inputs(params: dict, seed: int, device) -> tuple:
    tokens = int(params["tokens"])
    dim = int(params["dim"])
    num_seqs = int(params["num_seqs"])
    sigma = float(params.get("sigma", 1.0))
    offset_dtype = getattr(torch, params.get("offset_dtype", "int32"))
    assert 1 <= num_seqs <= tokens

    gen = torch.Generator(device=device).manual_seed(seed)
    lengths = _lengths(num_seqs, tokens, sigma, gen)
    offsets = torch.zeros(num_seqs + 1, dtype=torch.int64, device=device)
    offsets[1:] = torch.cumsum(lengths, 0)

    a = torch.sigmoid(2.0 + torch.randn(tokens, dim, generator=gen, device=device, dtype=torch.float32))
    b = torch.randn(tokens, dim, generator=gen, device=device, dtype=torch.float32)
    return a, b, offsets.to(offset_dtype).contiguous()
