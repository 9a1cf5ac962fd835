"""Ladder rung 0 (plain): one program per node, the textbook three passes over its segment, no guidance.

out[e, h] = exp(s[e, h] - m_i[h]) / sum_{e in node i} exp(s[e, h] - m_i[h]),  for the edges e of node i.

Program i owns node i's segment, rows offsets[i] .. offsets[i+1] - 1 of scores (heads adjacent), and streams it
in [BLOCK_E, BLOCK_H] tiles three times, as the reference's three steps do: the per-head maximum, then the sum of
exp(x - max), then out = exp(x - max) / sum stored tile by tile. Natural exponentials, a division per element.

Traffic: every score is read three times (the second and third mostly from the caches) and written once; one
program per node, so a node of a few edges keeps a whole program for a few values and the largest hub is one
program's serial walk.
"""

import torch
import triton
import triton.language as tl


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
    n_elems = (end - start) * n_heads
    step = BLOCK_E * n_heads

    m = tl.full([BLOCK_H], float("-inf"), tl.float32)
    for e in range(0, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))

    # masked lanes are exp(-inf) = 0 in the real heads; a padding head's lanes are never stored
    total = tl.zeros([BLOCK_H], dtype=tl.float32)
    for e in range(0, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf"))
        total += tl.sum(tl.exp(x - m[None, :]), axis=0)

    out = out_ptr + start * n_heads
    for e in range(0, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf"))
        tl.store(out + e + tile, tl.exp(x - m[None, :]) / total[None, :], mask=mask)


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
