"""Histogram with on-chip counting over a window of at most 256 bins, global atomics for the rest.

counts[b] = #{i : x[i] == b}, int64, x uint8 or int32 in [0, bins).

The floor is one read of x (1 or 4 bytes / element) and one write of the counts. A naive kernel (one
global atomic per element) is far from it because updates of the same hot bin -- a flat image region,
the token "the" -- serialise in L2. Design:

- Privatise (L1.1). Count on chip with tl.histogram and merge per-bin totals with one atomic per bin.
  tl.histogram lowers to warp ballots, one per bit of the bin index, and each thread owns bins / 32
  bins: its cost per element grows linearly with the bin count. Privatising a 4096-bin alphabet whole
  costs ~5 ms on 2^26 values on an H200 -- 8x the reference's atomics.
- A window of W = 256 bins (L1.2). Count on chip only the 256 bins where a block's values concentrate,
  and send the rest to global atomics, which rarely collide outside the hot bins. Two kinds of
  concentration, chosen per block by counting how many values each window would hold: the lowest ids
  (a Zipf vocabulary's head: BPE gives frequent tokens low ids) or the block's mean (a smooth image
  region). Alphabets of <= 256 bins (bytes) fit the window whole.
- Resident alphabets (L2.1, L2.2): when the window holds every bin, two programs per SM walk the blocks
  with a grid stride, keep acc += tl.histogram(block) in registers and merge once; otherwise each
  block merges its window, masked to bins it saw.
- Tiles (L3.1-L3.3): 16384 uint8 per block for the resident path with the next block's loads issued
  before the current one is counted; 4096 int32 for the windowed path (2048 sits inside a smooth region
  more often, but merges twice as many windows: 5% slower on camera-raw-12bit on an H200). Loads of x
  are evict_first (read once).

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-03-h200-night/profiles/ (the same expert code), summed up in docs/suite.md, section
"Workloads under 40% of SOL in the seven re-timed tasks, profiled again (call 4)".
- llama2-token-counts: 4.4% of SOL, bound by HBM; expert 1317.9 us, SOL 58.4 us.
  Profile (histogram__llama2-token-counts.txt): `_hist_window_kernel` 1.172 ms; DRAM 231.16 GB/s, 5%;
  latency-bound (memory 26%, SM 24%); 73 registers, occupancy 37% of 38% possible.
- bpe-65536-token-counts: 4.5% of SOL, bound by HBM; expert 2590.4 us, SOL 116.8 us.
  Profile (histogram__bpe-65536-token-counts.txt): `_hist_window_kernel` 2.291 ms; DRAM 235.59 GB/s, 5%;
  latency-bound (memory 28%, SM 25%); 73 registers, occupancy 37% of 38% possible.
- 4k-video-frames-uint8: 6.8% of SOL, bound by HBM; expert 638.5 us, SOL 43.3 us.
  Profile (histogram__4k-video-frames-uint8.txt): `_hist_resident_kernel` 634.2 us; compute-bound, SM 90%; DRAM
  317.48 GB/s, 7%; 80 registers, occupancy 19% of 38% possible.
- camera-raw-12bit: 10.7% of SOL, bound by HBM; expert 546.6 us, SOL 58.4 us.
  Profile (histogram__camera-raw-12bit.txt): `_hist_window_kernel` 507.3 us; DRAM 533.75 GB/s, 11%; latency-bound
  (memory 33%, SM 56%); 73 registers, occupancy 37% of 38% possible.
Why, all four: the time is counting, not the read of x that the model charges. tl.histogram lowers to warp
ballots, one per bit of the bin index per element, so its cost grows with the bins; on the resident path (4k-video)
these ballots keep the SM 90% busy. On the windowed path every value outside the block's window is a global atomic,
and those serialise on hot bins. The usual way to count at memory speed, a histogram privatised in shared memory
with shared-memory atomics, cannot be written in Triton 3.6 (docs/suite.md, "Workloads under 40% of SOL, and why
(profiled)"). So the chip's instruction rate for this lowering holds the kernel, then the expert's window; whether
another Triton design (counting after a sort, say) does better is open.
"""

import torch
import triton
import triton.language as tl

_WINDOW = 256  # tl.histogram's cost grows with its bin count; 256 bins is ~8 bins per thread
_WINDOW_BLOCK, _WINDOW_WARPS = 4096, 8  # the windowed path's tile: 16 int32 a thread, one merge per 4096 values
_RESIDENT_BLOCK_U8, _RESIDENT_WARPS, _RESIDENT_PER_SM = 16384, 8, 2


@triton.jit
def _hist_resident_kernel(x_ptr, counts_ptr, n, bins, num_blocks, BLOCK: tl.constexpr, HEAD: tl.constexpr):
    """Every bin fits on chip (bins <= HEAD): persistent programs, one merge each."""
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([HEAD], dtype=tl.int32)

    # the grid never exceeds num_blocks, so this program's first block exists
    offs = pid * BLOCK + lanes
    x = tl.load(x_ptr + offs, mask=offs < n, other=0, eviction_policy="evict_first")
    for block in range(pid, num_blocks, num_progs):
        # issue the next block's loads first (masked off past the end: no traffic)
        offs_next = (block + num_progs) * BLOCK + lanes
        x_next = tl.load(x_ptr + offs_next, mask=offs_next < n, other=0, eviction_policy="evict_first")
        acc += tl.histogram(x.to(tl.int32), HEAD, mask=offs < n)
        x = x_next
        offs = offs_next

    bin_ids = tl.arange(0, HEAD)
    tl.atomic_add(counts_ptr + bin_ids, acc.to(tl.int64), mask=(bin_ids < bins) & (acc > 0), sem="relaxed")


@triton.jit
def _hist_window_kernel(x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr, W: tl.constexpr):
    """bins > W: one program per block counts W bins on chip, the block's other values with atomics."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0, eviction_policy="evict_first").to(tl.int32)

    # where this block's values concentrate: the lowest ids, or around the block's mean
    count = tl.maximum(tl.sum(in_bounds.to(tl.int32), axis=0), 1)
    mean = (tl.sum(x.to(tl.float32), axis=0) / count).to(tl.int32)
    centred = tl.minimum(tl.maximum(mean - W // 2, 0), bins - W)
    hits_low = tl.sum((in_bounds & (x < W)).to(tl.int32), axis=0)
    hits_centred = tl.sum((in_bounds & (x >= centred) & (x < centred + W)).to(tl.int32), axis=0)
    lo = tl.where(hits_centred > hits_low, centred, 0)

    rel = x - lo
    in_window = in_bounds & (rel >= 0) & (rel < W)
    sub = tl.histogram(tl.where(in_window, rel, 0), W, mask=in_window)
    bin_ids = lo + tl.arange(0, W)
    # lo + W <= bins, so every window bin exists; merge only the bins this block saw
    tl.atomic_add(counts_ptr + bin_ids, sub.to(tl.int64), mask=sub > 0, sem="relaxed")
    tl.atomic_add(counts_ptr + x, 1, mask=in_bounds & ~in_window, sem="relaxed")


_SM_COUNT = {}


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # interpreter: a small grid still exercises the grid-stride loop
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


def solution(x, bins):
    assert x.dim() == 1 and x.is_contiguous() and x.dtype in (torch.uint8, torch.int32)
    n = x.numel()
    assert n < 2**31, "int32 element offsets"
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    if n == 0:
        return counts

    if bins <= _WINDOW:
        # 64 uint8 (four 16-byte vectors) or 32 int32 (eight) per thread; 2 programs of 8 warps per SM
        block = _RESIDENT_BLOCK_U8 if x.dtype == torch.uint8 else 8192
        num_blocks = triton.cdiv(n, block)
        grid = (min(num_blocks, _RESIDENT_PER_SM * _num_sms(x.device)),)
        head = triton.next_power_of_2(bins)
        _hist_resident_kernel[grid](x, counts, n, bins, num_blocks, BLOCK=block, HEAD=head, num_warps=_RESIDENT_WARPS)
    else:
        block = _WINDOW_BLOCK
        _hist_window_kernel[(triton.cdiv(n, block),)](
            x, counts, n, bins, BLOCK=block, W=_WINDOW, num_warps=_WINDOW_WARPS
        )
    return counts
