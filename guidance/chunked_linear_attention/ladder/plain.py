"""Ladder rung 0 (plain): the quadratic form, blocked like causal attention without the softmax. No guidance.

o[b, h, t, :] = sum_{s <= t} (q[b, h, t, :] . k[b, h, s, :]) v[b, h, s, :]

One program per (batch * head, block of 64 queries). It walks the key blocks from the first up to its own
diagonal block: P = q k^T (bf16 operands, fp32 result), the diagonal block masked to s <= t, then o += P v
(fp32 operands, TF32 on the GPU). The T x T matrix is never stored, but it is computed: T^2 D / 2 multiply-adds
per product per head, ~4.4 TFLOP for minimax-01-16k, and every program re-reads all earlier k and v blocks.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _quadratic_linear_attn_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, T, stride_h, stride_t, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):  # fmt: skip
    pid_bh = tl.program_id(0)
    pid_m = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    base = pid_bh * stride_h
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_t + offs_d[None, :], mask=(offs_m < T)[:, None], other=0.0)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for n0 in range(0, (pid_m + 1) * BLOCK_M, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mask_n = (offs_n < T)[:, None]
        k = tl.load(k_ptr + base + offs_n[:, None] * stride_t + offs_d[None, :], mask=mask_n, other=0.0)
        v = tl.load(v_ptr + base + offs_n[:, None] * stride_t + offs_d[None, :], mask=mask_n, other=0.0)
        p = tl.dot(q, tl.trans(k))
        p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        acc += tl.dot(p, v.to(tl.float32))
    tl.store(o_ptr + base + offs_m[:, None] * stride_t + offs_d[None, :], acc.to(o_ptr.dtype.element_ty),
             mask=(offs_m < T)[:, None])  # fmt: skip


def solution(q, k, v):
    assert q.dim() == 4 and q.shape == k.shape == v.shape, "q, k, v must be [B, H, T, D]"
    B, H, T, D = q.shape
    assert D in (16, 32, 64, 128), "head_dim must be a power of two in [16, 128]"
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    if T == 0 or B * H == 0:
        return o
    block = 64
    grid = (B * H, triton.cdiv(T, block))
    _quadratic_linear_attn_kernel[grid](q, k, v, o, T, q.stride(1), q.stride(2), D=D, BLOCK_M=block, BLOCK_N=block)
    return o
