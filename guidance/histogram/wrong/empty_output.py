"""Wrong: accumulates with atomics into an output allocated with torch.empty instead of torch.zeros.

Atomic adds need a zeroed destination. torch.empty hands back whatever the allocator had (often
zeros from a fresh allocation, which is how this survives a first test): bins that no element hits
keep the old contents, and the others are old contents plus the count.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def _hist_atomic_kernel(x_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
    tl.atomic_add(counts_ptr + x, 1, mask=in_bounds)


def solution(x, bins):
    n = x.numel()
    counts = torch.empty(bins, dtype=torch.int64, device=x.device)  # the defect: must be zeroed
    BLOCK = 4096
    _hist_atomic_kernel[(triton.cdiv(n, BLOCK),)](x, counts, n, BLOCK=BLOCK)
    return counts
