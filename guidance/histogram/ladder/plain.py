"""Histogram, plain rung: the obvious port of bincount, one global atomic increment per element.

No guidance items: one program per block of 4096 elements, each element does
tl.atomic_add(counts + x, 1). Correct for any bin count; every update goes to L2 as an atomic, and
updates of a hot bin (a frequent token, a flat image region) serialise there.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _hist_atomic_kernel(x_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
    tl.atomic_add(counts_ptr + x, 1, mask=in_bounds, sem="relaxed")


def solution(x, bins):
    assert x.dim() == 1 and x.is_contiguous() and x.dtype in (torch.uint8, torch.int32)
    n = x.numel()
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    if n == 0:
        return counts
    BLOCK = 4096
    _hist_atomic_kernel[(triton.cdiv(n, BLOCK),)](x, counts, n, BLOCK=BLOCK, num_warps=4)
    return counts
