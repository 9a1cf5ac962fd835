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
    """Positions of T packed tokens: the first sequence max_seq_len long (or T), the rest 1..max_seq_len,
    the last one cut where the batch ends."""
    device = gen.device
    # T lengths of at least 1 always cover T tokens; the ones past the end are simply unused
    lengths = torch.randint(1, max_seq_len + 1, (T,), generator=gen, device=device)
    lengths[0] = min(max_seq_len, T)
    ends = torch.cumsum(lengths, 0)
    token = torch.arange(T, device=device)
    seq = torch.searchsorted(ends, token, right=True)
    return token - (ends - lengths)[seq]


def _cos_sin_cache(max_position: int, D: int, base: float, device) -> torch.Tensor:
    inv_freq = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float64, device=device) / D))
    angles = torch.arange(max_position, dtype=torch.float64, device=device)[:, None] * inv_freq[None, :]
    return torch.cat((angles.cos(), angles.sin()), dim=-1).float().contiguous()


def make_inputs(params: dict, seed: int, device) -> tuple:
    T, Hq, Hkv, D = (int(params[k]) for k in ("T", "Hq", "Hkv", "D"))
    max_seq_len = int(params["max_seq_len"])
    max_position = int(params.get("max_position", max_seq_len))
    base = float(params.get("rope_base", 1e6))
    dtype = getattr(torch, params.get("dtype", "bfloat16"))

    gen = torch.Generator(device=device).manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, device=device)

    positions = _positions(T, max_seq_len, gen)
    q_weight = torch.exp(0.5 * randn(D))
    k_weight = torch.exp(0.5 * randn(D))
    q = randn(T, Hq, D) * torch.exp(randn(Hq, 1))
    k = randn(T, Hkv, D) * torch.exp(randn(Hkv, 1))
    return (
        q.to(dtype).contiguous(),
        k.to(dtype).contiguous(),
        q_weight.to(dtype),
        k_weight.to(dtype),
        positions,
        _cos_sin_cache(max_position, D, base, device),
        EPS,
    )
