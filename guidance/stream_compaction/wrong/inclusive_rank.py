"""Wrong: the textbook three-kernel compaction, but the in-tile slot is the *inclusive* prefix sum.

Count per tile, scan the counts, scatter -- all correct except that the scatter uses tl.cumsum(keep)
as the survivor's rank instead of cumsum - keep. Every survivor lands one slot to the right: slot 0
(and the first slot of every tile's run) is never written, and the last survivor spills past count.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(mask_ptr, counts_ptr, n, TILE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * TILE + tl.arange(0, TILE)
    keep = tl.load(mask_ptr + offs, mask=offs < n, other=0) != 0
    tl.store(counts_ptr + pid, tl.sum(keep.to(tl.int32), axis=0))


@triton.jit
def _scan_kernel(counts_ptr, starts_ptr, total_ptr, num_tiles, BLOCK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int64)
    for start in range(0, num_tiles, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        c = tl.load(counts_ptr + offs, mask=offs < num_tiles, other=0).to(tl.int64)
        tl.store(starts_ptr + offs, carry + tl.cumsum(c, axis=0) - c, mask=offs < num_tiles)
        carry += tl.sum(c, axis=0)
    tl.store(total_ptr, carry)


@triton.jit
def _scatter_kernel(values_ptr, mask_ptr, starts_ptr, out_ptr, n, TILE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * TILE + tl.arange(0, TILE)
    keep = tl.load(mask_ptr + offs, mask=offs < n, other=0) != 0
    base = tl.load(starts_ptr + pid)
    rank = tl.cumsum(keep.to(tl.int32), axis=0)  # the defect: inclusive, should subtract keep
    vals = tl.load(values_ptr + offs, mask=keep)
    tl.store(out_ptr + base + rank, vals, mask=keep & (base + rank < n))


def solution(values, mask):
    n = values.numel()
    TILE = 4096
    num_tiles = triton.cdiv(n, TILE)
    mask_u8 = mask.view(torch.uint8)
    counts = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    starts = torch.empty(num_tiles, dtype=torch.int64, device=values.device)
    count = torch.empty((), dtype=torch.int64, device=values.device)
    out = torch.empty_like(values)
    _count_kernel[(num_tiles,)](mask_u8, counts, n, TILE=TILE)
    _scan_kernel[(1,)](counts, starts, count, num_tiles, BLOCK=1024)
    _scatter_kernel[(num_tiles,)](values, mask_u8, starts, out, n, TILE=TILE)
    return out[: int(count.item())], count
