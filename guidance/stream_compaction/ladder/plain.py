"""Ladder rung 0 (plain): the textbook scan-then-scatter over every element, no guidance.

selected = values[mask] (order preserved), count = number of true mask entries.

A survivor's slot is the number of survivors before it, so kernel 1 computes the inclusive prefix sum of the
mask over the whole array and stores it as an int32 position per element. It is one program walking the array
in blocks of SCAN_BLOCK with a running carry (a scan within the block, plus everything before it); it ends with
the total, which is the count. Kernel 2 runs over all elements in blocks of BLOCK and stores values[i] at
position[i] - 1 wherever mask[i] is set. The host reads the count once and returns a view of the first count
elements of an N-element output.

Traffic per element: kernel 1 reads 1 mask byte and writes a 4-byte position; kernel 2 reads the mask, the
position and the value again and writes the survivors: about 10 + itemsize bytes against the floor's ~1-5. The
scan runs in a single program, so it walks the array at the speed of one SM.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _positions_kernel(mask_ptr, pos_ptr, count_ptr, n, SCAN_BLOCK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int32)
    for start in range(0, n, SCAN_BLOCK):
        offs = start + tl.arange(0, SCAN_BLOCK)
        keep = (tl.load(mask_ptr + offs, mask=offs < n, other=0) != 0).to(tl.int32)
        tl.store(pos_ptr + offs, carry + tl.cumsum(keep, axis=0), mask=offs < n)
        carry += tl.sum(keep, axis=0)
    tl.store(count_ptr, carry.to(tl.int64))


@triton.jit
def _scatter_kernel(values_ptr, mask_ptr, pos_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    keep = (tl.load(mask_ptr + offs, mask=in_bounds, other=0) != 0) & in_bounds
    vals = tl.load(values_ptr + offs, mask=in_bounds)
    pos = tl.load(pos_ptr + offs, mask=in_bounds, other=1)
    # the inclusive prefix counts the survivor itself: its slot is one less
    tl.store(out_ptr + pos - 1, vals, mask=keep)


def solution(values, mask):
    assert values.dim() == 1 and mask.shape == values.shape and mask.dtype == torch.bool, "1-D values and bool mask"
    assert values.is_contiguous() and mask.is_contiguous()
    n = values.numel()
    assert n < 2**31, "int32 positions"
    out = torch.empty_like(values)
    count = torch.zeros((), dtype=torch.int64, device=values.device)
    if n == 0:
        return out, count

    positions = torch.empty(n, dtype=torch.int32, device=values.device)
    _positions_kernel[(1,)](mask, positions, count, n, SCAN_BLOCK=4096)
    BLOCK = 1024
    _scatter_kernel[(triton.cdiv(n, BLOCK),)](values, mask, positions, out, n, BLOCK=BLOCK)
    # the output length is data-dependent: one scalar read, then a view
    return out[: int(count.item())], count
