"""Wrong: pre-scales Q by 1/sqrt(D) * log2(e) in place, to save one multiply per score.

The attention kernel itself is right and so is its output, but the scaling kernel writes back into the
caller's q: the input is modified (and a second call on the same q would scale it twice).
"""
# expect: incorrect:input-modified

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


@triton.jit
def scale_kernel(x_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, (x.to(tl.float32) * scale).to(x_ptr.dtype.element_ty), mask=offs < n)


def solution(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    # Fold the softmax scale into Q once instead of into every score: written back into the caller's q.
    scale_kernel[(triton.cdiv(q.numel(), 1024),)](q, q.numel(), 1.4426950408889634 / math.sqrt(D), BLOCK=1024)
    attn_kernel[(triton.cdiv(S, 64), B * H)](q, k, v, o, S * D, D, S, 1.0, HEAD_DIM=D, BLOCK_M=64, BLOCK_N=64)
    return o
