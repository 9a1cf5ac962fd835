"""Wrong: Triton computes the masked, scaled scores and O = P V; the softmax in between is torch's.

torch.softmax is forbidden in this task; the name is assembled at run time so no static rule sees it,
and the runtime guard rejects the call (and the aten softmax op) while solution() runs.
"""
# expect: static:dynamic-attribute
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import math

import torch
import triton
import triton.language as tl


@triton.jit
def scores_kernel(q_ptr, k_ptr, s_ptr, S, sm_scale, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    pid_m, pid_n, bh = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
    offs_n = pid_n * BLOCK + tl.arange(0, BLOCK)
    offs_d = tl.arange(0, HEAD_DIM)
    base = bh.to(tl.int64) * S * HEAD_DIM
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
    s = tl.where(offs_m[:, None] >= offs_n[None, :], tl.dot(q, tl.trans(k)) * sm_scale, float("-inf"))
    s_ptrs = s_ptr + bh.to(tl.int64) * S * S + offs_m[:, None] * S + offs_n[None, :]
    tl.store(s_ptrs, s, mask=(offs_m[:, None] < S) & (offs_n[None, :] < S))


@triton.jit
def pv_kernel(p_ptr, v_ptr, o_ptr, S, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    pid_m, bh = tl.program_id(0), tl.program_id(1)
    offs_m = pid_m * BLOCK + tl.arange(0, BLOCK)
    offs_k = tl.arange(0, BLOCK)
    offs_d = tl.arange(0, HEAD_DIM)
    base = bh.to(tl.int64) * S * HEAD_DIM
    acc = tl.zeros([BLOCK, HEAD_DIM], dtype=tl.float32)
    for k0 in range(0, S, BLOCK):
        keys = k0 + offs_k
        p = tl.load(p_ptr + bh.to(tl.int64) * S * S + offs_m[:, None] * S + keys[None, :],
                    mask=(offs_m[:, None] < S) & (keys[None, :] < S), other=0.0)  # fmt: skip
        v = tl.load(v_ptr + base + keys[:, None] * HEAD_DIM + offs_d[None, :], mask=keys[:, None] < S, other=0.0)
        acc = tl.dot(p, v.to(tl.float32), acc)
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(o_ptr.dtype.element_ty),
             mask=offs_m[:, None] < S)  # fmt: skip


def solution(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    scores = torch.empty((B, H, S, S), dtype=torch.float32, device=q.device)
    scores_kernel[(triton.cdiv(S, 64), triton.cdiv(S, 64), B * H)](q, k, scores, S, 1.0 / math.sqrt(D),
                                                                    HEAD_DIM=D, BLOCK=64)  # fmt: skip
    probs = getattr(torch, "soft" + "max")(scores, dim=-1)
    pv_kernel[(triton.cdiv(S, 64), B * H)](probs, v, o, S, HEAD_DIM=D, BLOCK=64)
    return o
