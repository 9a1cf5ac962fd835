"""Single-token decode attention over a paged KV cache, batched the way a PyTorch user writes it.

Gather every sequence's pages through block_tables into a padded [B, L, H_kv, D] K and V (L =
max_blocks * block_size), upcast to fp32, score each query head against its KV head (GQA: query head h
uses KV head h // (H_q / H_kv)), mask positions >= seq_len with -inf, softmax, weight the values, round
to the input dtype.
"""

import math

import torch


def reference(
    query: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
) -> torch.Tensor:
    B, Hq, D = query.shape
    _, bs, Hkv, _ = k_cache.shape
    L = block_tables.shape[1] * bs
    pages = block_tables.long()
    k = k_cache[pages].reshape(B, L, Hkv, D).float()
    v = v_cache[pages].reshape(B, L, Hkv, D).float()
    q = query.float().reshape(B, Hkv, Hq // Hkv, D)
    scores = torch.einsum("bhgd,blhd->bhgl", q, k) * (1.0 / math.sqrt(D))
    past_end = torch.arange(L, device=query.device)[None, :] >= seq_lens[:, None]
    scores.masked_fill_(past_end[:, None, None, :], float("-inf"))
    p = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhgl,blhd->bhgd", p, v)
    return out.reshape(B, Hq, D).to(query.dtype)
