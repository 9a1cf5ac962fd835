"""Ladder rung 1 (plain + L1.1, L1.2): one program per node, an online max and sum, short segments read once.

out[e, h] = exp(s[e, h] - m_i[h]) / sum_{e in node i} exp(s[e, h] - m_i[h]),  for the edges e of node i.

Over plain.py:
- L1.1: the max and the sum come from one pass over the segment: a running max m and sum s per head, with s
  rescaled by exp2(m_old - m_new) whenever a tile raises the max; a second pass writes exp2(x - m) / s. Nothing
  but the output is written to memory.
- L1.2: the first tile is loaded once and kept in registers between the two passes, so a segment of at most
  BLOCK_E edges (nearly all of them) is read once and written once, and only a longer segment's remaining tiles
  are read again. The scores are scaled by log2(e) once as they are loaded and exponentiated with exp2; the
  division is one reciprocal per (node, head) multiplied in.

Without L2 the ownership is still plain's: one program per node whatever its degree (a node of a few edges holds
a whole program for a few values, the largest hub is one program's serial walk), tiles of 1024 elements.
"""

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _segment_softmax_kernel(s_ptr, out_ptr, offsets_ptr, n_heads, BLOCK_E: tl.constexpr, BLOCK_H: tl.constexpr):
    node = tl.program_id(0)
    start = tl.load(offsets_ptr + node)
    end = tl.load(offsets_ptr + node + 1)
    # node's scores are one contiguous run of (end - start) * n_heads floats; a tile is BLOCK_E edges of it, with
    # edges along rows and heads (contiguous) along columns, at element offsets `tile` from the tile's start
    offs_h = tl.arange(0, BLOCK_H)
    mask_h = (offs_h < n_heads)[None, :]
    tile = tl.arange(0, BLOCK_E)[:, None] * n_heads + offs_h[None, :]
    seg = s_ptr + start * n_heads
    out = out_ptr + start * n_heads
    n_elems = (end - start) * n_heads
    step = BLOCK_E * n_heads

    # pass 1, first tile: kept in registers for pass 2 (an empty segment stores nothing below)
    mask0 = (tile < n_elems) & mask_h
    x0 = tl.load(seg + tile, mask=mask0, other=float("-inf")) * _LOG2E
    m = tl.max(x0, axis=0)
    acc = tl.sum(tl.exp2(x0 - m[None, :]), axis=0)
    # pass 1, the rest: the running sum is rescaled whenever the max grows
    for e in range(step, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf")) * _LOG2E
        m_new = tl.maximum(m, tl.max(x, axis=0))
        acc = acc * tl.exp2(m - m_new) + tl.sum(tl.exp2(x - m_new[None, :]), axis=0)
        m = m_new
    inv = 1.0 / acc

    # pass 2: the first tile from registers, the rest read again
    tl.store(out + tile, tl.exp2(x0 - m[None, :]) * inv[None, :], mask=mask0)
    for e in range(step, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf")) * _LOG2E
        tl.store(out + e + tile, tl.exp2(x - m[None, :]) * inv[None, :], mask=mask)


def solution(scores, offsets):
    assert scores.dim() == 2 and scores.is_contiguous(), "scores must be a contiguous [E, H] tensor"
    assert offsets.dim() == 1 and offsets.is_contiguous(), "offsets must be a contiguous 1-D tensor"
    num_edges, n_heads = scores.shape
    num_nodes = offsets.numel() - 1
    out = torch.empty_like(scores)
    if num_nodes <= 0 or num_edges == 0:
        return out
    block_h = triton.next_power_of_2(n_heads)
    block_e = max(1, 1024 // block_h)
    _segment_softmax_kernel[(num_nodes,)](scores, out, offsets, n_heads, BLOCK_E=block_e, BLOCK_H=block_h)
    return out
