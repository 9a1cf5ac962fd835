"""Ladder rung 1 (plain + L1.1, L1.2): reduce, scan, scatter over tiles, with the in-tile rank from a prefix sum.

selected = values[mask] (order preserved), count = number of true mask entries.

Over plain.py:
- L1.1: the array is cut into tiles of TILE elements. Kernel 1 counts each tile's survivors (one tl.sum per tile,
  in parallel); kernel 2 turns the tile counts into exclusive offsets (one program walking the N / TILE counts
  with a carry; it also stores the total count); kernel 3 writes every tile's survivors from its offset on. Order
  is kept because offsets grow with the tile index; no atomic hands out slots.
- L1.2: inside a tile a survivor's slot is offset + rank, rank = cumsum(keep) - keep (the exclusive prefix of the
  0/1 mask, int32), so no per-element position array goes through memory.

Without L2 this is three launches and the mask is read twice (by the count and by the scatter); the scatter reads
every value, survivor or not (values loaded with the bounds mask), and the tiles are 1024 elements at the
default 4 warps.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _tile_count_kernel(mask_ptr, counts_ptr, n, TILE: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile * TILE + tl.arange(0, TILE)
    keep = (tl.load(mask_ptr + offs, mask=offs < n, other=0) != 0).to(tl.int32)
    tl.store(counts_ptr + tile, tl.sum(keep, axis=0))


@triton.jit
def _offsets_kernel(counts_ptr, offsets_ptr, count_ptr, num_tiles, BLOCK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int32)
    for start in range(0, num_tiles, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        c = tl.load(counts_ptr + idx, mask=idx < num_tiles, other=0)
        # exclusive: a tile's offset counts only the tiles before it
        tl.store(offsets_ptr + idx, carry + tl.cumsum(c, axis=0) - c, mask=idx < num_tiles)
        carry += tl.sum(c, axis=0)
    tl.store(count_ptr, carry.to(tl.int64))


@triton.jit
def _scatter_kernel(values_ptr, mask_ptr, offsets_ptr, out_ptr, n, TILE: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile * TILE + tl.arange(0, TILE)
    in_bounds = offs < n
    keep = (tl.load(mask_ptr + offs, mask=in_bounds, other=0) != 0) & in_bounds
    keep_i = keep.to(tl.int32)
    rank = tl.cumsum(keep_i, axis=0) - keep_i
    vals = tl.load(values_ptr + offs, mask=in_bounds)
    tl.store(out_ptr + tl.load(offsets_ptr + tile) + rank, vals, mask=keep)


def solution(values, mask):
    assert values.dim() == 1 and mask.shape == values.shape and mask.dtype == torch.bool, "1-D values and bool mask"
    assert values.is_contiguous() and mask.is_contiguous()
    n = values.numel()
    assert n < 2**31, "int32 offsets"
    out = torch.empty_like(values)
    count = torch.zeros((), dtype=torch.int64, device=values.device)
    if n == 0:
        return out, count

    TILE = 1024
    num_tiles = triton.cdiv(n, TILE)
    counts = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    offsets = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    _tile_count_kernel[(num_tiles,)](mask, counts, n, TILE=TILE)
    _offsets_kernel[(1,)](counts, offsets, count, num_tiles, BLOCK=1024)
    _scatter_kernel[(num_tiles,)](values, mask, offsets, out, n, TILE=TILE)
    # the output length is data-dependent: one scalar read, then a view
    return out[: int(count.item())], count
