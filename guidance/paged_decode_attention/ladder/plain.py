"""Ladder rung 0 (plain): one program per (query head, sequence), an online softmax over every page of its
block-table row. No guidance.

out[b, h] = softmax(K_b q[b, h] / sqrt(D)) V_b,  K_b, V_b gathered through block_tables up to seq_lens[b]

The program walks all max_blocks pages of its block-table row, one page per step: it gathers the page's keys of
KV head h // G, scores them against its query (a broadcast multiply and a row sum), masks tokens t >= seq_len in
the scores, updates the running max, sum and weighted V, and finally divides. Pages past the sequence are read
and thrown away (their ids are valid), so every sequence costs as much as the longest; each program streams its
sequence alone (B * H_q programs), and the G query heads of a group each read the same K and V.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _decode_kernel(
    q_ptr, k_ptr, v_ptr, bt_ptr, len_ptr, o_ptr, max_blocks, block_size, G, D, scale,
    stride_qb, stride_qh, stride_kn, stride_ks, stride_kh, stride_vn, stride_vs, stride_vh, stride_bt,
    stride_ob, stride_oh, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr,
):  # fmt: skip
    h = tl.program_id(0)
    b = tl.program_id(1)
    h_kv = h // G
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < D
    seq_len = tl.load(len_ptr + b)
    q = tl.load(q_ptr + b * stride_qb + h * stride_qh + offs_d, mask=mask_d, other=0.0).to(tl.float32)
    m = tl.full([], -1e30, tl.float32)
    denom = tl.zeros([], dtype=tl.float32)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for p in range(0, max_blocks):
        page = tl.load(bt_ptr + b * stride_bt + p).to(tl.int64)
        in_page = (offs_s < block_size)[:, None] & mask_d[None, :]
        k = tl.load(k_ptr + page * stride_kn + offs_s[:, None] * stride_ks + h_kv * stride_kh + offs_d[None, :],
                    mask=in_page, other=0.0).to(tl.float32)  # fmt: skip
        v = tl.load(v_ptr + page * stride_vn + offs_s[:, None] * stride_vs + h_kv * stride_vh + offs_d[None, :],
                    mask=in_page, other=0.0).to(tl.float32)  # fmt: skip
        s = tl.sum(k * q[None, :], axis=1) * scale
        live = (p * block_size + offs_s < seq_len) & (offs_s < block_size)
        s = tl.where(live, s, -1e30)
        m_new = tl.maximum(m, tl.max(s, axis=0))
        alpha = tl.exp(m - m_new)
        w = tl.where(live, tl.exp(s - m_new), 0.0)
        denom = denom * alpha + tl.sum(w, axis=0)
        acc = acc * alpha + tl.sum(w[:, None] * v, axis=0)
        m = m_new
    tl.store(o_ptr + b * stride_ob + h * stride_oh + offs_d, (acc / denom).to(o_ptr.dtype.element_ty), mask=mask_d)


def solution(query, k_cache, v_cache, block_tables, seq_lens):
    B, H_q, D = query.shape
    _, block_size, H_kv, _ = k_cache.shape
    assert H_q % H_kv == 0 and k_cache.stride(3) == 1 and v_cache.stride(3) == 1 and query.stride(2) == 1
    out = torch.empty((B, H_q, D), dtype=query.dtype, device=query.device)
    if B == 0:
        return out
    _decode_kernel[(H_q, B)](
        query, k_cache, v_cache, block_tables, seq_lens, out, block_tables.shape[1], block_size, H_q // H_kv, D,
        1.0 / math.sqrt(D), query.stride(0), query.stride(1), k_cache.stride(0), k_cache.stride(1),
        k_cache.stride(2), v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), block_tables.stride(0),
        out.stride(0), out.stride(1), BLOCK_S=triton.next_power_of_2(block_size), BLOCK_D=triton.next_power_of_2(D),
    )  # fmt: skip
    return out
