"""Fused per-head RMSNorm + rotary embedding of q and k: one read and one write of each, fp32 math, bf16 out.

For token t, head h, x = q[t, h, :] (or k): n = x * rsqrt(mean(x^2) + eps) * w, then the NeoX rotation of the two
halves, out = (n1 * cos - n2 * sin | n2 * cos + n1 * sin), with cos | sin = cos_sin_cache[positions[t]].

Design (one guidance item per idea):

* Halves as the unit (L1.1). Each head is loaded as its two halves x1 = x[:D/2], x2 = x[D/2:], two [heads, D/2]
  tiles. rotate_half is then a swap of two register tiles and a sign: no permute, no gather, no concatenation.
  The sum of squares is sum(x1^2) + sum(x2^2), one fp32 reduction per head, and the weight is split the same way.
* Norm before rotation, in one fp32 expression (L1.2). The weight scales dimension i and the rotation mixes i with
  i + D/2, so the weight must be applied before the rotation; everything stays fp32 until the single bf16 store.
* A program owns whole tokens (L2.1): all Hq query heads and all Hkv key heads of one token. The cos | sin row of
  its position is gathered once and used by every head of q and of k (Hq + Hkv = 24 to 68 heads here), instead of once
  per head or once per tensor; both norm weights are loaded once. q and k are read once and written once, so the
  traffic is 4 * T * (Hq + Hkv) * D bytes plus one fp32 table row per token, from L2 for repeated positions.
* Tiles and vectors (L3.1). Heads are the rows of a [BLOCK_H, BLOCK_HALF] tile whose rows are contiguous half-heads
  (64 bf16 = 128 bytes at D = 128), so every load and store is a full 16-byte vector per thread and the warps of a
  program cover whole 128-byte lines; num_warps grows with the tile (4 warps up to 4096 elements, 8 above) so each
  thread holds 16-32 values per tensor. Head counts that are not powers of two are masked rows.
* Cache policy and 64-bit offsets (L3.2). q and k are streamed once (evict_first); the table row is kept
  (evict_last): every sequence of the batch reads the same positions. Token offsets are int64 (T * Hq * D reaches
  2^27 here and grows with longer prefill).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _norm_rope_heads(
    x_ptr, o_ptr, w1, w2, c, s, n_heads, eps, HEAD_DIM: tl.constexpr, HALF: tl.constexpr, BLOCK_H: tl.constexpr,
    BLOCK_HALF: tl.constexpr,
):  # fmt: skip
    """RMSNorm + rotation of one token's heads: x_ptr/o_ptr point at head 0 of the token (rows of HEAD_DIM)."""
    offs_h = tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, BLOCK_HALF)
    mask = (offs_h < n_heads)[:, None] & (offs_d < HALF)[None, :]
    lo = offs_h[:, None] * HEAD_DIM + offs_d[None, :]
    x1 = tl.load(x_ptr + lo, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    x2 = tl.load(x_ptr + lo + HALF, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    # one fp32 reduction per head over both halves; masked lanes add 0; the mean is over the true HEAD_DIM
    rstd = tl.rsqrt((tl.sum(x1 * x1, axis=1) + tl.sum(x2 * x2, axis=1)) / HEAD_DIM + eps)
    n1 = x1 * rstd[:, None] * w1[None, :]
    n2 = x2 * rstd[:, None] * w2[None, :]
    # rotate_half: the halves swap places and the first changes sign; rounded to bf16 once
    tl.store(o_ptr + lo, (n1 * c[None, :] - n2 * s[None, :]).to(o_ptr.dtype.element_ty), mask=mask)
    tl.store(o_ptr + lo + HALF, (n2 * c[None, :] + n1 * s[None, :]).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _qk_norm_rope_kernel(
    q_ptr, k_ptr, qw_ptr, kw_ptr, pos_ptr, cache_ptr, qo_ptr, ko_ptr, n_q_heads, n_k_heads, eps, stride_cache,
    HEAD_DIM: tl.constexpr, HALF: tl.constexpr, BLOCK_HQ: tl.constexpr, BLOCK_HK: tl.constexpr,
    BLOCK_HALF: tl.constexpr,
):  # fmt: skip
    # One token per program. Traffic: (Hq + Hkv) * D * 2 bytes read and written, one D * 4-byte table row (mostly
    # from L2: positions repeat across the packed sequences), the weights from L2.
    t = tl.program_id(0).to(tl.int64)
    offs_d = tl.arange(0, BLOCK_HALF)
    mask_d = offs_d < HALF
    pos = tl.load(pos_ptr + t)
    row = cache_ptr + pos * stride_cache
    c = tl.load(row + offs_d, mask=mask_d, other=0.0, eviction_policy="evict_last")
    s = tl.load(row + HALF + offs_d, mask=mask_d, other=0.0, eviction_policy="evict_last")

    qw1 = tl.load(qw_ptr + offs_d, mask=mask_d, other=0.0).to(tl.float32)
    qw2 = tl.load(qw_ptr + HALF + offs_d, mask=mask_d, other=0.0).to(tl.float32)
    q_off = t * n_q_heads * HEAD_DIM
    _norm_rope_heads(q_ptr + q_off, qo_ptr + q_off, qw1, qw2, c, s, n_q_heads, eps, HEAD_DIM, HALF, BLOCK_HQ,
                     BLOCK_HALF)  # fmt: skip

    kw1 = tl.load(kw_ptr + offs_d, mask=mask_d, other=0.0).to(tl.float32)
    kw2 = tl.load(kw_ptr + HALF + offs_d, mask=mask_d, other=0.0).to(tl.float32)
    k_off = t * n_k_heads * HEAD_DIM
    _norm_rope_heads(k_ptr + k_off, ko_ptr + k_off, kw1, kw2, c, s, n_k_heads, eps, HEAD_DIM, HALF, BLOCK_HK,
                     BLOCK_HALF)  # fmt: skip


def _num_warps(tile: int) -> int:
    # L3.1: a few 16-byte vectors a thread; a name of its own so a sweep (residency_designs.py) can swap it
    return 4 if tile <= 4096 else 8


def solution(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    assert q.dim() == 3 and k.dim() == 3 and q.shape[0] == k.shape[0] and q.shape[2] == k.shape[2]
    T, n_q_heads, head_dim = q.shape
    n_k_heads = k.shape[1]
    assert head_dim % 2 == 0 and cos_sin_cache.shape[1] == head_dim
    assert q.is_contiguous() and k.is_contiguous() and cos_sin_cache.stride(1) == 1
    q_out = torch.empty_like(q)
    k_out = torch.empty_like(k)
    if T == 0:
        return q_out, k_out

    half = head_dim // 2
    block_half = triton.next_power_of_2(half)
    block_hq = triton.next_power_of_2(n_q_heads)
    block_hk = triton.next_power_of_2(n_k_heads)
    tile = 2 * block_hq * block_half  # elements of q per program, the larger of the two tensors
    _qk_norm_rope_kernel[(T,)](
        q,
        k,
        q_weight,
        k_weight,
        positions,
        cos_sin_cache,
        q_out,
        k_out,
        n_q_heads,
        n_k_heads,
        float(eps),
        cos_sin_cache.stride(0),
        HEAD_DIM=head_dim,
        HALF=half,
        BLOCK_HQ=block_hq,
        BLOCK_HK=block_hk,
        BLOCK_HALF=block_half,
        num_warps=_num_warps(tile),
    )
    return q_out, k_out
