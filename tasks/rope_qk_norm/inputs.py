"""Inputs for rope_qk_norm: q and k of a packed prefill batch, the q/k norm weights, positions and the RoPE cache.

q [T, Hq, D] and k [T, Hkv, D] are bf16 projections with per-head scales that differ (real q/k projections are not
unit-scale; the norm removes that). The norm weights are log-normal around 1 with a wide spread, as trained
q_norm/k_norm weights are. The batch packs sequences of varied length, each starting at position 0; the first one
has max_seq_len tokens, so exactly max_seq_len distinct positions occur. The cache holds cos | sin of the rotary
angles pos * base^(-2i/D) for every position up to max_position, in float32, as vLLM keeps it.
"""

import torch

EPS = 1e-6


def _positions(T: int, max_seq_len: int, gen: torch.Generator) -> torch.Tensor:
    lengths = [min(max_seq_len, T)]
    while sum(lengths) < T:
        lengths.append(int(torch.randint(1, max_seq_len + 1, (1,), generator=gen)))
    lengths[-1] -= sum(lengths) - T
    return torch.cat([torch.arange(n) for n in lengths])


def _cos_sin_cache(max_position: int, D: int, base: float) -> torch.Tensor:
    inv_freq = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    angles = torch.arange(max_position, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return torch.cat((angles.cos(), angles.sin()), dim=-1).float().contiguous()


def make_inputs(params: dict, seed: int, device) -> tuple:
    T, Hq, Hkv, D = (int(params[k]) for k in ("T", "Hq", "Hkv", "D"))
    max_seq_len = int(params["max_seq_len"])
    max_position = int(params.get("max_position", max_seq_len))
    base = float(params.get("rope_base", 1e6))
    dtype = getattr(torch, params.get("dtype", "bfloat16"))

    gen = torch.Generator(device="cpu").manual_seed(seed)
    positions = _positions(T, max_seq_len, gen)
    q_weight = torch.exp(0.5 * torch.randn(D, generator=gen))
    k_weight = torch.exp(0.5 * torch.randn(D, generator=gen))
    q_scale = torch.exp(torch.randn(Hq, 1, generator=gen))
    k_scale = torch.exp(torch.randn(Hkv, 1, generator=gen))

    dev_gen = torch.Generator(device=device).manual_seed(seed)
    q = torch.randn(T, Hq, D, generator=dev_gen, device=device) * q_scale.to(device)
    k = torch.randn(T, Hkv, D, generator=dev_gen, device=device) * k_scale.to(device)
    return (
        q.to(dtype).contiguous(),
        k.to(dtype).contiguous(),
        q_weight.to(dtype).to(device),
        k_weight.to(dtype).to(device),
        positions.to(device),
        _cos_sin_cache(max_position, D, base).to(device),
        EPS,
    )
