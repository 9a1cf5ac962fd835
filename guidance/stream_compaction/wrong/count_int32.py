"""Wrong: a correct three-kernel compaction (count, scan, scatter) that returns the count as int32.

The per-tile counts are int32, so keeping the total in int32 looks natural, and the values of
`selected` are right. But the contract (and mask.sum()) gives a 0-d int64 tensor; a caller that mixes
it with int64 index math or compares dtypes breaks.
"""
# expect: incorrect:dtype

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
    carry = tl.zeros((), dtype=tl.int32)
    for start in range(0, num_tiles, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        c = tl.load(counts_ptr + offs, mask=offs < num_tiles, other=0)
        tl.store(starts_ptr + offs, carry + tl.cumsum(c, axis=0) - c, mask=offs < num_tiles)
        carry += tl.sum(c, axis=0)
    tl.store(total_ptr, carry)


@triton.jit
def _scatter_kernel(values_ptr, mask_ptr, starts_ptr, out_ptr, n, TILE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * TILE + tl.arange(0, TILE)
    keep = tl.load(mask_ptr + offs, mask=offs < n, other=0) != 0
    base = tl.load(starts_ptr + pid)
    keep_i = keep.to(tl.int32)
    rank = tl.cumsum(keep_i, axis=0) - keep_i
    vals = tl.load(values_ptr + offs, mask=keep)
    tl.store(out_ptr + base + rank, vals, mask=keep)


def solution(values, mask):
    n = values.numel()
    TILE = 4096
    num_tiles = triton.cdiv(n, TILE)
    mask_u8 = mask.view(torch.uint8)
    counts = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    starts = torch.empty(num_tiles, dtype=torch.int32, device=values.device)
    count = torch.empty((), dtype=torch.int32, device=values.device)  # the defect: int64 expected
    out = torch.empty_like(values)
    _count_kernel[(num_tiles,)](mask_u8, counts, n, TILE=TILE)
    _scan_kernel[(1,)](counts, starts, count, num_tiles, BLOCK=1024)
    _scatter_kernel[(num_tiles,)](values, mask_u8, starts, out, n, TILE=TILE)
    return out[: int(count.item())], count
