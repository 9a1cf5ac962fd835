"""Histogram, L1+L2 rung: l1 + L2.1 (persistent programs keep their sub-histogram in registers across
all their blocks and merge once) + L2.2 (the merge skips empty bins).

A fixed grid of a few programs per SM walks the blocks with a grid stride, accumulating
acc += tl.histogram(block) in registers; the HEAD atomics of the merge happen once per program instead
of once per block, and bins the program never saw are not touched. The tail of a large vocabulary
still goes straight to global atomics.
"""

import torch
import triton
import triton.language as tl

_MAX_HEAD = 4096


@triton.jit
def _hist_persistent_kernel(
    x_ptr, counts_ptr, n, bins, num_blocks, BLOCK: tl.constexpr, HEAD: tl.constexpr, HAS_TAIL: tl.constexpr
):
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    acc = tl.zeros([HEAD], dtype=tl.int32)
    for block in range(pid, num_blocks, num_progs):
        offs = block * BLOCK + tl.arange(0, BLOCK)
        in_bounds = offs < n
        x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
        in_head = in_bounds & (x < HEAD)
        acc += tl.histogram(tl.where(in_head, x, 0), HEAD, mask=in_head)
        if HAS_TAIL:
            tl.atomic_add(counts_ptr + x, 1, mask=in_bounds & (x >= HEAD), sem="relaxed")
    bin_ids = tl.arange(0, HEAD)
    tl.atomic_add(counts_ptr + bin_ids, acc.to(tl.int64), mask=(bin_ids < bins) & (acc > 0), sem="relaxed")


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # interpreter: a small grid still exercises the grid-stride loop
    return torch.cuda.get_device_properties(device).multi_processor_count


def solution(x, bins):
    assert x.dim() == 1 and x.is_contiguous() and x.dtype in (torch.uint8, torch.int32)
    n = x.numel()
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    if n == 0:
        return counts
    head = min(triton.next_power_of_2(bins), _MAX_HEAD)
    BLOCK = 4096
    num_blocks = triton.cdiv(n, BLOCK)
    grid = (min(num_blocks, 4 * _num_sms(x.device)),)
    _hist_persistent_kernel[grid](
        x, counts, n, bins, num_blocks, BLOCK=BLOCK, HEAD=head, HAS_TAIL=bins > head, num_warps=4
    )
    return counts
