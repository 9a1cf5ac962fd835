"""Wrong: a program per tile of 16 nodes, but the grid is num_nodes // 16, so the last partial tile is dropped.

The per-segment softmax itself is right (online max and sum per head, then a normalising pass). With a node
count that is not a multiple of 16 (203 in the interpret workload, 169,343 in ogbn-arxiv) the edges of the last
few nodes are never written and still hold the harness's poison.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def _segment_softmax_kernel(
    s_ptr, out_ptr, offsets_ptr, n_heads, NODES: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_H: tl.constexpr
):
    offs_e = tl.arange(0, BLOCK_E)
    offs_h = tl.arange(0, BLOCK_H)
    mask_h = offs_h < n_heads
    for i in range(NODES):
        node = tl.program_id(0) * NODES + i
        start = tl.load(offsets_ptr + node)
        end = tl.load(offsets_ptr + node + 1)
        m = tl.full([BLOCK_H], float("-inf"), tl.float32)
        acc = tl.zeros([BLOCK_H], dtype=tl.float32)
        for e0 in range(start, end, BLOCK_E):
            edges = e0 + offs_e
            mask = (edges < end)[:, None] & mask_h[None, :]
            x = tl.load(s_ptr + edges[:, None] * n_heads + offs_h[None, :], mask=mask, other=float("-inf"))
            m_new = tl.maximum(m, tl.max(x, axis=0))
            acc = acc * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[None, :]), axis=0)
            m = m_new
        for e0 in range(start, end, BLOCK_E):
            edges = e0 + offs_e
            mask = (edges < end)[:, None] & mask_h[None, :]
            offs = edges[:, None] * n_heads + offs_h[None, :]
            x = tl.load(s_ptr + offs, mask=mask, other=0.0)
            tl.store(out_ptr + offs, tl.exp(x - m[None, :]) / acc[None, :], mask=mask)


def solution(scores, offsets):
    num_nodes = offsets.numel() - 1
    n_heads = scores.shape[1]
    out = torch.empty_like(scores)
    NODES = 16
    BLOCK_H = triton.next_power_of_2(n_heads)
    grid = (num_nodes // NODES,)  # the defect: should be triton.cdiv(num_nodes, NODES)
    _segment_softmax_kernel[grid](
        scores, out, offsets, n_heads, NODES=NODES, BLOCK_E=max(16, 1024 // BLOCK_H), BLOCK_H=BLOCK_H, num_warps=4
    )
    return out
