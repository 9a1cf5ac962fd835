"""Wrong: a correct FlashAttention kernel launched on S // BLOCK_M query blocks instead of cdiv(S, BLOCK_M).

Every realistic S is a multiple of 128, so the output is complete there and the bug survives testing on
them; with S = 300 the last 44 query rows of every head are never written (they keep whatever the
allocation held).
"""
# expect: incorrect:unwritten

import math

import torch
import triton
import triton.language as tl


@triton.jit
def attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, stride_bh, stride_s, S, qk_scale, HEAD_DIM: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):  # fmt: skip
    start_m = tl.program_id(0) * BLOCK_M
    base = tl.program_id(1).to(tl.int64) * stride_bh
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.full([BLOCK_M], -1.0e6, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, start_m + BLOCK_M, BLOCK_N):
        keys = start_n + offs_n
        kv = base + keys[:, None] * stride_s + offs_d[None, :]
        k = tl.load(k_ptr + kv, mask=keys[:, None] < S, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(offs_m[:, None] >= keys[None, :], s, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + kv, mask=keys[:, None] < S, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    o = (acc / l_i[:, None]).to(o_ptr.dtype.element_ty)
    tl.store(o_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], o, mask=offs_m[:, None] < S)


def solution(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    attn_kernel[(S // 64, B * H)](
        q, k, v, o, S * D, D, S, 1.4426950408889634 / math.sqrt(D), HEAD_DIM=D, BLOCK_M=64, BLOCK_N=64
    )
    return o
