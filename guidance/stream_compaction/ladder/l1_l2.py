"""Ladder rung 2 (L1 + L2.1, L2.2): one pass with a decoupled look-back, reading only the surviving values.

selected = values[mask] (order preserved), count = number of true mask entries.

Over l1.py:
- L2.1: the count, the scan and the scatter are one kernel that reads the mask once. A program takes its tile
  index from an atomic ticket (so every tile it waits on was handed out earlier and is running), counts the
  tile, publishes the count at once, then walks back over its predecessors one tile at a time, adding their
  counts until it meets one that has published its inclusive prefix; it then publishes its own inclusive prefix.
- L2.2: the values are loaded with mask=keep (a sector with no survivor is never read), before the look-back so
  the loads are in flight while the program waits; the tile's survivors leave as one contiguous run from its
  offset, and the host returns a view of the output after one .item().

Left to the expert (L3): each tile publishes through three int32 words (its count, its inclusive prefix, and a
flag saying which is ready) with a release store of the flag after the value and an acquire read of the flag
before the value, instead of one packed 64-bit word; the look-back probes one predecessor per step instead of a
vector of 32; tiles are 1024 elements at the default 4 warps, the mask is read as bool, and no cache hints.
"""

import torch
import triton
import triton.language as tl

_COUNT = tl.constexpr(1)  # the tile's own survivor count is published
_INCLUSIVE = tl.constexpr(2)  # the survivors of this tile and of all before it are published


@triton.jit
def _compact_kernel(
    values_ptr,
    mask_ptr,
    out_ptr,
    flags_ptr,  # [num_tiles] int32, zeroed: 0, _COUNT or _INCLUSIVE
    counts_ptr,  # [num_tiles] int32
    inclusive_ptr,  # [num_tiles] int32
    ticket_ptr,  # [1] int32, zeroed
    count_ptr,  # 0-d int64
    n,
    num_tiles,
    TILE: tl.constexpr,
):
    tile = tl.atomic_add(ticket_ptr, 1)
    offs = tile * TILE + tl.arange(0, TILE)
    in_bounds = offs < n
    # the one read of the mask
    keep = (tl.load(mask_ptr + offs, mask=in_bounds, other=0) != 0) & in_bounds
    keep_i = keep.to(tl.int32)
    local = tl.sum(keep_i, axis=0)

    # publish at once: the value first, then (release) the flag that says it is there
    if tile == 0:
        tl.atomic_xchg(inclusive_ptr + tile, local, sem="relaxed")
        tl.atomic_xchg(flags_ptr + tile, _INCLUSIVE, sem="release")
    else:
        tl.atomic_xchg(counts_ptr + tile, local, sem="relaxed")
        tl.atomic_xchg(flags_ptr + tile, _COUNT, sem="release")

    # only the survivors' values are read, and the loads are issued before the wait
    vals = tl.load(values_ptr + offs, mask=keep)
    rank = tl.cumsum(keep_i, axis=0) - keep_i

    # look back one predecessor at a time until one has its inclusive prefix
    base = local * 0
    j = tile - 1
    while j >= 0:
        flag = tl.atomic_add(flags_ptr + j, 0, sem="acquire")
        if flag == _INCLUSIVE:
            base += tl.atomic_add(inclusive_ptr + j, 0, sem="relaxed")
            j = j * 0 - 1
        elif flag == _COUNT:
            base += tl.atomic_add(counts_ptr + j, 0, sem="relaxed")
            j -= 1
        # flag 0: the predecessor has not counted its tile yet; probe it again

    if tile > 0:
        tl.atomic_xchg(inclusive_ptr + tile, base + local, sem="relaxed")
        tl.atomic_xchg(flags_ptr + tile, _INCLUSIVE, sem="release")
    if tile == num_tiles - 1:
        tl.store(count_ptr, (base + local).to(tl.int64))
    tl.store(out_ptr + (base + rank), vals, mask=keep)


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
    flags = torch.zeros(num_tiles, dtype=torch.int32, device=values.device)
    counts = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    inclusive = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    ticket = torch.zeros(1, dtype=torch.int32, device=values.device)
    _compact_kernel[(num_tiles,)](values, mask, out, flags, counts, inclusive, ticket, count, n, num_tiles, TILE=TILE)
    # the output length is data-dependent: one scalar read, then a view
    return out[: int(count.item())], count
