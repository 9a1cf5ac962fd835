"""Inputs for flash_attention_causal: Q, K, V [B, H, S, D] in bf16 or fp16, shaped like a prefill.

Random vectors alone give flat attention (every score near zero, outputs near zero), which would let
a kernel that misplaces the mask or drops the scale pass. These imitate what a trained model's
attention looks like after RoPE:
- a relative-position term: a quarter of the head dimensions carry low-frequency sinusoids of the
  position in both q and k, so q_i . k_j peaks at j = i and decays with distance (local heads);
- an attention sink: key 0 is aligned with a direction every query shares, so it draws a large
  score in every row (as the first token does in real LLMs);
- content noise, with logit spread of a few units, so rows differ;
- values with per-channel means, so outputs are O(0.1..1) rather than averaging to zero.
Scores stay far from fp32 overflow but span ~10 units, so a kernel without max subtraction in its
exponent would still be exact here; what is tested is the mask, the scale and the normalisation.
"""

import math

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    B, H, S, D = (int(params[k]) for k in ("batch", "heads", "seq_len", "head_dim"))
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, device=device)

    q = 0.8 * randn(B, H, S, D)
    k = randn(B, H, S, D)
    v = randn(B, H, S, D) + 0.5 * randn(1, H, 1, D)

    # Relative-position term on the first D/4 dims: cos/sin pairs, periods from ~50 to ~13000 positions.
    n_pairs = D // 8
    pos = torch.arange(S, dtype=torch.float32, device=device)[:, None]
    freqs = 0.125 * (1.0 / 256.0) ** (torch.arange(n_pairs, dtype=torch.float32, device=device) / max(n_pairs - 1, 1))
    angle = pos * freqs[None, :]
    strength = 1.2 * torch.rand(1, H, 1, 1, generator=g, device=device)  # some heads are more local than others
    rel = torch.cat([angle.cos(), angle.sin()], dim=-1) * math.sqrt(D / n_pairs)  # [S, D/4]
    q[..., : 2 * n_pairs] += strength * rel
    k[..., : 2 * n_pairs] += rel

    # Attention sink: key 0 points along a direction u that every query leans towards.
    u = randn(1, H, 1, D)
    u = u / u.norm(dim=-1, keepdim=True)
    q += 1.5 * u
    k[:, :, 0, :] += 4.0 * math.sqrt(D) * u[:, :, 0, :] / 1.5

    return tuple(t.to(dtype).contiguous() for t in (q, k, v))
