"""Wrong: a correct privatised histogram, memoised by (shape, dtype, bins) across calls.

The kernel is correct (an on-chip sub-histogram of the low ids per block, merged with one atomic per bin).
But the result is kept in a module-level dict and returned for every later call with the same shape
and bin count, so a benchmark that reuses one input set would time a dictionary lookup. New data of
the same shape (the next seed) gets the first call's counts.
"""
# expect: runtime:no-launch  (a cache hit launches nothing: every call must launch a kernel)

import torch
import triton
import triton.language as tl

_CACHE = {}


@triton.jit
def _hist_block_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr, HEAD: tl.constexpr, HAS_TAIL: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
    in_head = in_bounds & (x < HEAD)
    sub = tl.histogram(tl.where(in_head, x, 0), HEAD, mask=in_head)
    bin_ids = tl.arange(0, HEAD)
    tl.atomic_add(counts_ptr + bin_ids, sub.to(tl.int64), mask=bin_ids < bins)
    if HAS_TAIL:
        tl.atomic_add(counts_ptr + x, 1, mask=in_bounds & (x >= HEAD))


def solution(x, bins):
    key = (tuple(x.shape), x.dtype, bins)
    if key in _CACHE:
        return _CACHE[key]
    n = x.numel()
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    head = min(triton.next_power_of_2(bins), 4096)
    BLOCK = 4096
    _hist_block_kernel[(triton.cdiv(n, BLOCK),)](x, counts, n, bins, BLOCK=BLOCK, HEAD=head, HAS_TAIL=bins > head)
    _CACHE[key] = counts
    return counts
