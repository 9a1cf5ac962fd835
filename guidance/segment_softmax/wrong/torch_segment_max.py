"""Wrong: takes the per-node maxima from torch.segment_reduce and does only the exp and the sums in Triton.

The max is "just the stabiliser", so borrowing it from PyTorch looks harmless -- but torch.segment_reduce is
the CSR reduction this task is about and is forbidden (a static check sees the call).
"""
# expect: static:forbidden-call

import torch
import triton
import triton.language as tl


@triton.jit
def _exp_normalise_kernel(s_ptr, max_ptr, out_ptr, offsets_ptr, n_heads, BLOCK_E: tl.constexpr, BLOCK_H: tl.constexpr):
    node = tl.program_id(0)
    start = tl.load(offsets_ptr + node)
    end = tl.load(offsets_ptr + node + 1)
    offs_e = tl.arange(0, BLOCK_E)
    offs_h = tl.arange(0, BLOCK_H)
    mask_h = offs_h < n_heads
    m = tl.load(max_ptr + node * n_heads + offs_h, mask=mask_h, other=0.0)
    acc = tl.zeros([BLOCK_H], dtype=tl.float32)
    for e0 in range(start, end, BLOCK_E):
        edges = e0 + offs_e
        mask = (edges < end)[:, None] & mask_h[None, :]
        x = tl.load(s_ptr + edges[:, None] * n_heads + offs_h[None, :], mask=mask, other=float("-inf"))
        acc += tl.sum(tl.exp(x - m[None, :]), axis=0)
    for e0 in range(start, end, BLOCK_E):
        edges = e0 + offs_e
        mask = (edges < end)[:, None] & mask_h[None, :]
        offs = edges[:, None] * n_heads + offs_h[None, :]
        x = tl.load(s_ptr + offs, mask=mask, other=0.0)
        tl.store(out_ptr + offs, tl.exp(x - m[None, :]) / acc[None, :], mask=mask)


def solution(scores, offsets):
    num_nodes = offsets.numel() - 1
    n_heads = scores.shape[1]
    seg_max = torch.segment_reduce(scores, "max", offsets=offsets, axis=0).contiguous()
    out = torch.empty_like(scores)
    BLOCK_H = triton.next_power_of_2(n_heads)
    _exp_normalise_kernel[(num_nodes,)](
        scores, seg_max, out, offsets, n_heads, BLOCK_E=max(16, 1024 // BLOCK_H), BLOCK_H=BLOCK_H, num_warps=4
    )
    return out
