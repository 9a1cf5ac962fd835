"""Histogram, L1+L2 rung: l1 + L2.1 (when the window holds the whole alphabet, persistent programs keep
their counts in registers across all their blocks and merge once) + L2.2 (merges skip empty bins).

With <= 256 bins a fixed grid of a few programs per SM walks the blocks with a grid stride,
accumulating acc += tl.histogram(block) in registers, and merges once. Larger alphabets keep l1's
per-block window, but merge only the window bins the block saw.
"""

import torch
import triton
import triton.language as tl

_WINDOW = 256


@triton.jit
def _hist_persistent_kernel(x_ptr, counts_ptr, n, bins, num_blocks, BLOCK: tl.constexpr, HEAD: tl.constexpr):
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    acc = tl.zeros([HEAD], dtype=tl.int32)
    for block in range(pid, num_blocks, num_progs):
        offs = block * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0).to(tl.int32)
        acc += tl.histogram(x, HEAD, mask=offs < n)
    bin_ids = tl.arange(0, HEAD)
    tl.atomic_add(counts_ptr + bin_ids, acc.to(tl.int64), mask=(bin_ids < bins) & (acc > 0), sem="relaxed")


@triton.jit
def _hist_window_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr, W: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
    count = tl.maximum(tl.sum(in_bounds.to(tl.int32), axis=0), 1)
    mean = (tl.sum(x.to(tl.float32), axis=0) / count).to(tl.int32)
    centred = tl.minimum(tl.maximum(mean - W // 2, 0), bins - W)
    hits_low = tl.sum((in_bounds & (x < W)).to(tl.int32), axis=0)
    hits_centred = tl.sum((in_bounds & (x >= centred) & (x < centred + W)).to(tl.int32), axis=0)
    lo = tl.where(hits_centred > hits_low, centred, 0)
    rel = x - lo
    in_window = in_bounds & (rel >= 0) & (rel < W)
    sub = tl.histogram(tl.where(in_window, rel, 0), W, mask=in_window)
    tl.atomic_add(counts_ptr + lo + tl.arange(0, W), sub.to(tl.int64), mask=sub > 0, sem="relaxed")
    tl.atomic_add(counts_ptr + x, 1, mask=in_bounds & ~in_window, sem="relaxed")


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
    BLOCK = 4096
    num_blocks = triton.cdiv(n, BLOCK)
    if bins <= _WINDOW:
        grid = (min(num_blocks, 4 * _num_sms(x.device)),)
        head = triton.next_power_of_2(bins)
        _hist_persistent_kernel[grid](x, counts, n, bins, num_blocks, BLOCK=BLOCK, HEAD=head, num_warps=4)
    else:
        _hist_window_kernel[(num_blocks,)](x, counts, n, bins, BLOCK=BLOCK, W=_WINDOW, num_warps=4)
    return counts
