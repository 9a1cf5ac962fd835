"""Wrong: wraps the kernel in try/except and falls back to torch.bincount when the launch fails.

A defensive habit ("tl.histogram may not compile for this bin count"), but it is a hidden fallback:
whenever the kernel raises, PyTorch does the work and the result looks like the kernel's. The static
checks reject a try/except around a launch (and the forbidden torch.bincount).
"""
# expect: static:try-fallback

import torch
import triton
import triton.language as tl


@triton.jit
def _hist_block_kernel(x_ptr, counts_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
    sub = tl.histogram(x, BINS, mask=in_bounds)
    bin_ids = tl.arange(0, BINS)
    tl.atomic_add(counts_ptr + bin_ids, sub.to(tl.int64), mask=bin_ids < BINS)


def solution(x, bins):
    n = x.numel()
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    try:
        _hist_block_kernel[(triton.cdiv(n, 4096),)](x, counts, n, BLOCK=4096, BINS=bins)
    except Exception:
        counts = torch.bincount(x, minlength=bins)
    return counts
