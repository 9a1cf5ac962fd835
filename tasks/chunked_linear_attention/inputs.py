"""Inputs for chunked_linear_attention: q, k, v [B, H, T, D] bfloat16.

q and k imitate the feature maps of modern linear-attention layers (GLA, DeltaNet, Lightning Attention use
L2-normalised or normalised features): unit-norm rows, so |q_t . k_s| <= 1 and the output grows like
sqrt(t / D) -- O(1..50) at these lengths -- instead of overflowing. v is standard normal.
"""

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    B, H, T, D = (int(params[key]) for key in ("batch", "heads", "seq_len", "head_dim"))
    dtype = getattr(torch, params.get("dtype", "bfloat16"))
    gen = torch.Generator(device=device).manual_seed(seed)

    def unit_rows() -> torch.Tensor:
        x = torch.randn(B, H, T, D, generator=gen, device=device, dtype=torch.float32)
        return x / x.norm(dim=-1, keepdim=True)

    q = unit_rows().to(dtype)
    k = unit_rows().to(dtype)
    v = torch.randn(B, H, T, D, generator=gen, device=device, dtype=torch.float32).to(dtype)
    return q.contiguous(), k.contiguous(), v.contiguous()
