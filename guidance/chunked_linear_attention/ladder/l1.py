"""Ladder rung 1 (plain + L1.1, L1.2): the chunked form as a three-kernel chunk scan, states in global memory.

o_c = tril(q_c k_c^T) v_c + q_c S_c,   S_c = sum over chunks before c of k^T v   (chunks of 64 tokens)

Over plain.py:
- L1.1: the T x T product is gone. Kernel 1 computes each chunk's k_c^T v_c (D x D, fp32) in parallel over
  chunks; kernel 3 computes the masked 64 x 64 intra-chunk term and q_c S_c. Work per head falls from ~T^2 D to
  ~4 T D^2 + 4 T C D multiply-adds (~16x fewer at T = 16384, D = 128).
- L1.2: kernel 2 turns the per-chunk k^T v into the *exclusive* prefix in place (S_c holds only earlier chunks,
  the running sum in fp32), and kernel 3's mask keeps the diagonal (row >= col), so every s <= t counts once.

What it lacks is L2.1: the per-chunk states are written and read back through HBM (T / 64 x D^2 fp32 per head,
~1 GB for minimax-01-16k, written by kernel 1, read and rewritten by kernel 2, read by kernel 3) and there are
three launches. Expected on an H200: far faster than plain (FLOPs, not bytes, bound plain at ~4.4 TFLOP), but
bound by that state traffic. Products use fp32 operands (TF32) where an operand is fp32, as in plain.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _chunk_kv_kernel(k_ptr, v_ptr, s_ptr, T, NC, stride_h, stride_t, D: tl.constexpr, CHUNK: tl.constexpr):
    pid_bh = tl.program_id(0)
    c = tl.program_id(1)
    rows = c * CHUNK + tl.arange(0, CHUNK)
    offs_d = tl.arange(0, D)
    mask = (rows < T)[:, None]
    base = pid_bh * stride_h + rows[:, None] * stride_t + offs_d[None, :]
    k = tl.load(k_ptr + base, mask=mask, other=0.0)
    v = tl.load(v_ptr + base, mask=mask, other=0.0)
    kv = tl.dot(tl.trans(k), v)  # D x D, fp32
    s_base = s_ptr + (pid_bh * NC + c) * D * D
    tl.store(s_base + offs_d[:, None] * D + offs_d[None, :], kv)


@triton.jit
def _exclusive_prefix_kernel(s_ptr, NC, D: tl.constexpr, BLOCK_R: tl.constexpr):
    # one program per (batch * head, block of state rows): S_c <- sum_{c' < c} kv_{c'}, in place
    pid_bh = tl.program_id(0)
    offs_r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)
    offs_d = tl.arange(0, D)
    ptrs = s_ptr + pid_bh * NC * D * D + offs_r[:, None] * D + offs_d[None, :]
    running = tl.zeros((BLOCK_R, D), dtype=tl.float32)
    for c in range(NC):
        kv = tl.load(ptrs + c * D * D)
        tl.store(ptrs + c * D * D, running)
        running += kv


@triton.jit
def _chunk_output_kernel(
    q_ptr, k_ptr, v_ptr, s_ptr, o_ptr, T, NC, stride_h, stride_t, D: tl.constexpr, CHUNK: tl.constexpr
):  # fmt: skip
    pid_bh = tl.program_id(0)
    c = tl.program_id(1)
    offs_c = tl.arange(0, CHUNK)
    rows = c * CHUNK + offs_c
    offs_d = tl.arange(0, D)
    mask = (rows < T)[:, None]
    base = pid_bh * stride_h + rows[:, None] * stride_t + offs_d[None, :]
    q = tl.load(q_ptr + base, mask=mask, other=0.0)
    k = tl.load(k_ptr + base, mask=mask, other=0.0)
    v = tl.load(v_ptr + base, mask=mask, other=0.0)
    p = tl.dot(q, tl.trans(k))
    p = tl.where(offs_c[:, None] >= offs_c[None, :], p, 0.0)  # diagonal included
    o = tl.dot(p, v.to(tl.float32))
    s = tl.load(s_ptr + (pid_bh * NC + c) * D * D + offs_d[:, None] * D + offs_d[None, :])
    o += tl.dot(q.to(tl.float32), s)
    tl.store(o_ptr + base, o.to(o_ptr.dtype.element_ty), mask=mask)


def solution(q, k, v):
    assert q.dim() == 4 and q.shape == k.shape == v.shape, "q, k, v must be [B, H, T, D]"
    B, H, T, D = q.shape
    assert D in (16, 32, 64, 128), "head_dim must be a power of two in [16, 128]"
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    if T == 0 or B * H == 0:
        return o
    chunk = 64
    nc = triton.cdiv(T, chunk)
    states = torch.empty((B * H, nc, D, D), dtype=torch.float32, device=q.device)
    sh, st = q.stride(1), q.stride(2)
    _chunk_kv_kernel[(B * H, nc)](k, v, states, T, nc, sh, st, D=D, CHUNK=chunk)
    block_r = min(D, 32)
    _exclusive_prefix_kernel[(B * H, D // block_r)](states, nc, D=D, BLOCK_R=block_r)
    _chunk_output_kernel[(B * H, nc)](q, k, v, states, o, T, nc, sh, st, D=D, CHUNK=chunk)
    return o
