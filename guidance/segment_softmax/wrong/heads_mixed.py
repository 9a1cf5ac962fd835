"""Wrong: treats each node's contiguous deg * H block of scores as one softmax, mixing the heads.

A node's scores are contiguous (edge-major, heads adjacent), so "softmax over the segment's memory range" is
an easy slip: it normalises over all deg * H values together instead of over the deg values of each head.
Each head's outputs then sum to ~1/H of what they should (and the shared max is harmless, the shared sum is
not). Correct only when H = 1; every workload with several heads mismatches.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _segment_softmax_flat_kernel(s_ptr, out_ptr, offsets_ptr, n_heads, BLOCK: tl.constexpr):
    node = tl.program_id(0)
    # the defect: the segment is taken as the flat range [start * H, end * H), all heads together
    lo = tl.load(offsets_ptr + node) * n_heads
    hi = tl.load(offsets_ptr + node + 1) * n_heads
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i0 in range(lo, hi, BLOCK):
        idx = i0 + offs
        x = tl.load(s_ptr + idx, mask=idx < hi, other=float("-inf"))
        m_new = tl.maximum(m, x)
        acc = acc * tl.exp(tl.where(m_new == float("-inf"), 0.0, m - m_new)) + tl.where(
            idx < hi, tl.exp(x - m_new), 0.0
        )
        m = m_new
    m_all = tl.max(m, axis=0)
    total = tl.sum(acc * tl.exp(m - m_all), axis=0)
    for i0 in range(lo, hi, BLOCK):
        idx = i0 + offs
        x = tl.load(s_ptr + idx, mask=idx < hi, other=0.0)
        tl.store(out_ptr + idx, tl.exp(x - m_all) / total, mask=idx < hi)


def solution(scores, offsets):
    num_nodes = offsets.numel() - 1
    out = torch.empty_like(scores)
    _segment_softmax_flat_kernel[(num_nodes,)](scores, out, offsets, scores.shape[1], BLOCK=256, num_warps=4)
    return out
