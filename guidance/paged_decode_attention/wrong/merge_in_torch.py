"""Wrong: the split-K partition kernel is Triton, but the merge of the partials is written in torch.

amax, exp2, multiply, sum and divide run as aten ops inside solution(): compute outside Triton, which the
runtime guard rejects. (Numerically it would be right.)
"""
# expect: static:dead-launch
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import math

import torch
import triton
import triton.language as tl

_LOG2E = 1.4426950408889634
_MASKED = tl.constexpr(-1.0e6)  # finite: exp2 of it is 0, and no inf - inf can make a NaN
_PARTITION = 512
_BLOCK_N = 64


@triton.jit
def paged_attn_partition_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    bt_ptr,
    lens_ptr,
    m_ptr,
    l_ptr,
    acc_ptr,
    stride_qb,
    stride_qh,
    stride_kb,
    stride_ks,
    stride_kh,
    stride_vb,
    stride_vs,
    stride_vh,
    stride_btb,
    stride_pb,
    stride_ph,
    qk_scale,
    GROUP: tl.constexpr,
    G_PAD: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    PAGE: tl.constexpr,
    PARTITION: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    part = tl.program_id(0)
    h_kv = tl.program_id(1)
    b = tl.program_id(2)
    seq_len = tl.load(lens_ptr + b)
    start = part * PARTITION
    if start >= seq_len:
        return
    end = tl.minimum(start + PARTITION, seq_len)

    offs_g = tl.arange(0, G_PAD)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    heads = h_kv * GROUP + offs_g  # the query heads of this KV head's group
    in_group = offs_g < GROUP
    q_ptrs = q_ptr + b.to(tl.int64) * stride_qb + heads[:, None] * stride_qh + offs_d[None, :]
    q = tl.load(q_ptrs, mask=in_group[:, None], other=0.0)

    bt_row = bt_ptr + b.to(tl.int64) * stride_btb
    k_head = k_ptr + h_kv * stride_kh
    v_head = v_ptr + h_kv * stride_vh
    m_i = tl.full([G_PAD], _MASKED, dtype=tl.float32)
    l_i = tl.zeros([G_PAD], dtype=tl.float32)
    acc = tl.zeros([G_PAD, HEAD_DIM], dtype=tl.float32)
    for t0 in range(start, end, BLOCK_N):
        tokens = t0 + offs_n
        live = tokens < end
        page = tl.load(bt_row + tokens // PAGE, mask=live, other=0).to(tl.int64)
        slot = tokens % PAGE
        k = tl.load(k_head + page[:, None] * stride_kb + slot[:, None] * stride_ks + offs_d[None, :],
                    mask=live[:, None], other=0.0)  # fmt: skip
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(live[None, :], s, _MASKED)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_head + page[:, None] * stride_vb + slot[:, None] * stride_vs + offs_d[None, :],
                    mask=live[:, None], other=0.0)  # fmt: skip
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new

    # Partials: [B, H_q, n_parts] for m and l, [B, H_q, n_parts, D] for acc (parts contiguous per head).
    row = b.to(tl.int64) * stride_pb + heads * stride_ph + part
    tl.store(m_ptr + row, m_i, mask=in_group)
    tl.store(l_ptr + row, l_i, mask=in_group)
    tl.store(acc_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=in_group[:, None])


def solution(
    query: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
) -> torch.Tensor:
    """out[b, h] = softmax(q[b, h] . K_b^T / sqrt(D)) V_b over the live tokens of sequence b (GQA)."""
    B, Hq, D = query.shape
    _, page, Hkv, _ = k_cache.shape
    assert Hq % Hkv == 0 and k_cache.stride(-1) == 1 and v_cache.stride(-1) == 1 and query.stride(-1) == 1
    group = Hq // Hkv
    # The widest sequence is bounded by the table's width: no device sync to read max(seq_lens).
    n_parts = triton.cdiv(block_tables.shape[1] * page, _PARTITION)
    m_part = torch.full((B, Hq, n_parts), float("-inf"), dtype=torch.float32, device=query.device)
    l_part = torch.zeros_like(m_part)
    acc_part = torch.zeros((B, Hq, n_parts, D), dtype=torch.float32, device=query.device)
    out = torch.empty_like(query)

    paged_attn_partition_kernel[(n_parts, Hkv, B)](
        query, k_cache, v_cache, block_tables, seq_lens, m_part, l_part, acc_part,
        query.stride(0), query.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        block_tables.stride(0), m_part.stride(0), m_part.stride(1),
        _LOG2E / math.sqrt(D),
        GROUP=group, G_PAD=max(16, triton.next_power_of_2(group)), HEAD_DIM=D, PAGE=page,
        PARTITION=_PARTITION, BLOCK_N=_BLOCK_N, num_warps=4, num_stages=3,
    )  # fmt: skip
    # Merge the partials with torch (unused partitions hold m = -inf after the fill, so they weigh 0).
    weights = (m_part - m_part.amax(dim=-1, keepdim=True)).exp2()
    merged = (weights[..., None] * acc_part).sum(dim=2) / (weights * l_part).sum(dim=-1)[..., None]
    out.copy_(merged.to(out.dtype))
    return out
