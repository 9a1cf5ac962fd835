"""Reference for rope_qk_norm: per-head RMSNorm of q and k, then rotary embedding (NeoX / Hugging Face halves).

Written the way a PyTorch model does it (Qwen3 attention: q_norm, k_norm, then apply_rotary_pos_emb with
rotate_half), with every step in float32 and one rounding to bfloat16 at the end, as vLLM's kernel does.
"""

import torch


def _rms_norm_rope(x, weight, cos, sin, eps):
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()
    x1, x2 = xf.chunk(2, dim=-1)
    cos, sin = cos[:, None, :], sin[:, None, :]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)


def reference(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    cos, sin = cos_sin_cache[positions].chunk(2, dim=-1)
    return _rms_norm_rope(q, q_weight, cos, sin, eps), _rms_norm_rope(k, k_weight, cos, sin, eps)
