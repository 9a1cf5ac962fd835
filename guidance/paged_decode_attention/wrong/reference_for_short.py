"""Wrong: the Triton kernel only handles the batch when every sequence is long; otherwise it defers to the
task's reference, "since short contexts are cheap anyway". Importing the reference is forbidden outright.
"""
# expect: static:calls-reference

import math

import torch
import triton
import triton.language as tl
from reference import reference


@triton.jit
def decode_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr, max_blocks, qk_scale, H_Q: tl.constexpr,
                  H_KV: tl.constexpr, HEAD_DIM: tl.constexpr, PAGE: tl.constexpr, BLOCK_N: tl.constexpr):  # fmt: skip
    h, b = tl.program_id(0), tl.program_id(1)
    h_kv = h // (H_Q // H_KV)
    seq_len = tl.load(lens_ptr + b)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + (b * H_Q + h) * HEAD_DIM + offs_d).to(tl.float32)
    m_i = tl.max(tl.full([BLOCK_N], -1.0e6, dtype=tl.float32), 0)
    l_i = tl.sum(tl.zeros([BLOCK_N], dtype=tl.float32), 0)
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for t0 in range(0, seq_len, BLOCK_N):
        tokens = t0 + offs_n
        live = tokens < seq_len
        page = tl.load(bt_ptr + b * max_blocks + tokens // PAGE, mask=live, other=0).to(tl.int64)
        rows = ((page * PAGE + tokens % PAGE) * H_KV + h_kv) * HEAD_DIM
        k = tl.load(k_ptr + rows[:, None] + offs_d[None, :], mask=live[:, None], other=0.0).to(tl.float32)
        s = tl.where(live, tl.sum(k * q[None, :], 1) * qk_scale, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.math.exp2(s - m_new)
        alpha = tl.math.exp2(m_i - m_new)
        v = tl.load(v_ptr + rows[:, None] + offs_d[None, :], mask=live[:, None], other=0.0).to(tl.float32)
        l_i = l_i * alpha + tl.sum(p, 0)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        m_i = m_new
    tl.store(o_ptr + (b * H_Q + h) * HEAD_DIM + offs_d, (acc / l_i).to(o_ptr.dtype.element_ty))


def solution(query, k_cache, v_cache, block_tables, seq_lens):
    B, Hq, D = query.shape
    _, page, Hkv, _ = k_cache.shape
    if block_tables.shape[1] * page < 4096:
        return reference(query, k_cache, v_cache, block_tables, seq_lens)
    out = torch.empty_like(query)
    decode_kernel[(Hq, B)](query, k_cache, v_cache, block_tables, seq_lens, out, block_tables.shape[1],
                           1.4426950408889634 / math.sqrt(D), H_Q=Hq, H_KV=Hkv, HEAD_DIM=D, PAGE=page,
                           BLOCK_N=64)  # fmt: skip
    return out
