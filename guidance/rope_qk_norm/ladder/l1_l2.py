"""Ladder rung 2 (l1.py + L2.1, L2.2): one program per token for all of its q and k heads, one launch.

n = x * rsqrt(mean(x^2) + eps) * w;  out = n * cos + rotate_half(n) * sin,  rotate_half(n) = (-n2, n1)

Over l1.py (same half-head arithmetic):
- L2.1: a program owns one token: all Hq query heads and all Hkv key heads, q and k in the same launch. It loads
  the token's cos|sin row once and each weight once and reuses them for its 24-68 heads; the heads are the rows
  of a [BLOCK_H, D/2] tile (masked), so one tl.sum over axis 1 gives every head's rstd.
- L2.2: each head stays in registers from the load to the store: q and k are read once and written once, nothing
  intermediate crosses memory; the repeated table rows come from L2.

Expected on an H200: one launch instead of two and (Hq + Hkv)x fewer table-row and weight loads than l1.py's
program per head. Left for L3: the warps are the default 4 whatever the tile (L3.1), and there are no cache
hints on the streams or the table and the token offset is 32-bit (L3.2).
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
    x1 = tl.load(x_ptr + lo, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + lo + HALF, mask=mask, other=0.0).to(tl.float32)
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
    t = tl.program_id(0)
    offs_d = tl.arange(0, BLOCK_HALF)
    mask_d = offs_d < HALF
    pos = tl.load(pos_ptr + t)
    row = cache_ptr + pos * stride_cache
    c = tl.load(row + offs_d, mask=mask_d, other=0.0)
    s = tl.load(row + HALF + offs_d, mask=mask_d, other=0.0)

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
    )
    return q_out, k_out
