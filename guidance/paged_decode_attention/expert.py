"""Decode attention over a paged KV cache with GQA (flash-decoding): split each sequence, then combine.

Design (one guidance item per idea):

* Split-K with mergeable partials (L1.1). Each sequence's tokens are cut into partitions of PARTITION
  tokens. A partition's program runs the online softmax over its tokens and leaves a partial
  (m, l, acc): its max score (log2 units), its sum of exp2(s - m) and its unnormalised fp32 output. The
  partials merge exactly: M = max m_i, O = sum acc_i * 2^(m_i - M) / sum l_i * 2^(m_i - M).
* Only live tokens (L1.2). A partition that starts at or past seq_len returns at once; the last one masks
  its tail (scores -> a large negative, loads predicated off), so padding pages and stale slots are never
  read, whatever block_tables' padding entries point at.
* Grid (L2.1). Kernel 1 runs one program per (partition, KV head, sequence), so a batch with few long
  sequences and few KV heads (32 x 1 at Llama-3-70B TP8) still launches ~1000 live programs; partials go
  to a small fp32 workspace, and kernel 2 (one program per (query head, sequence)) merges them.
* GQA sharing (L2.2). A kernel-1 program owns all G query heads of its KV head: their Q rows are loaded
  once into a [G_PAD, D] tile, and every K/V tile it gathers is used by all G heads, so the cache is read
  once per step, not G times.
* Tiles (L3.1). A tile is BLOCK_N = 64 consecutive tokens (several pages): one vector of physical page ids
  from block_tables, then a [BLOCK_N, D] gather whose rows are D contiguous bf16 (256 B at D = 128),
  loaded as 16-byte vectors; 4 warps and 3 stages keep the next tiles' gathers in flight.
* Tensor cores and exp2 (L3.2). Scores are tl.dot([G_PAD, D], [D, BLOCK_N]) with the group padded to 16
  rows (the MMA minimum; the padding rows are zeros and never stored), the scale and log2(e) folded into
  one multiplier, exp2, and P in bf16 for the P.V dot with fp32 accumulation.
* Partition size (L3.3). PARTITION = 512 tokens: 8 tiles a program, enough loads to amortise the start
  (Q load, page ids) and the partial's write (D + 2 fp32 per query head, ~2% of the KV bytes it reads).

Memory traffic per call: every live K and V row read once (seq_len * H_kv * D * 2 bytes each), Q read
once, O written once; partials written and read once (B * H_q * partitions * (D + 2) * 4 bytes).
"""

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


@triton.jit
def combine_partitions_kernel(
    m_ptr,
    l_ptr,
    acc_ptr,
    lens_ptr,
    o_ptr,
    stride_pb,
    stride_ph,
    stride_ob,
    stride_oh,
    HEAD_DIM: tl.constexpr,
    PARTITION: tl.constexpr,
    CHUNK: tl.constexpr,
):
    h = tl.program_id(0)
    b = tl.program_id(1)
    n_parts = tl.cdiv(tl.load(lens_ptr + b), PARTITION)
    row = b.to(tl.int64) * stride_pb + h * stride_ph
    offs_c = tl.arange(0, CHUNK)
    offs_d = tl.arange(0, HEAD_DIM)

    m_max = tl.max(tl.full([CHUNK], _MASKED, dtype=tl.float32), 0)
    for c0 in range(0, n_parts, CHUNK):
        m = tl.load(m_ptr + row + c0 + offs_c, mask=c0 + offs_c < n_parts, other=_MASKED)
        m_max = tl.maximum(m_max, tl.max(m, 0))
    l_sum = tl.sum(tl.zeros([CHUNK], dtype=tl.float32), 0)
    out = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for c0 in range(0, n_parts, CHUNK):
        parts = c0 + offs_c
        valid = parts < n_parts
        w = tl.math.exp2(tl.load(m_ptr + row + parts, mask=valid, other=_MASKED) - m_max)
        l_sum += tl.sum(w * tl.load(l_ptr + row + parts, mask=valid, other=0.0), 0)
        acc = tl.load(acc_ptr + (row + parts)[:, None] * HEAD_DIM + offs_d[None, :], mask=valid[:, None], other=0.0)
        out += tl.sum(w[:, None] * acc, 0)
    o = out / l_sum
    tl.store(o_ptr + b.to(tl.int64) * stride_ob + h * stride_oh + offs_d, o.to(o_ptr.dtype.element_ty))


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
    m_part = torch.empty((B, Hq, n_parts), dtype=torch.float32, device=query.device)
    l_part = torch.empty_like(m_part)
    acc_part = torch.empty((B, Hq, n_parts, D), dtype=torch.float32, device=query.device)
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
    combine_partitions_kernel[(Hq, B)](
        m_part, l_part, acc_part, seq_lens, out,
        m_part.stride(0), m_part.stride(1), out.stride(0), out.stride(1),
        HEAD_DIM=D, PARTITION=_PARTITION, CHUNK=16, num_warps=4,
    )  # fmt: skip
    return out
