"""Stream compaction (masked select) in one pass: tile counts, a decoupled look-back for the tile's
output offset, and an in-tile prefix sum that scatters the survivors in order.

selected = values[mask] (order preserved), count = number of true mask entries.

The problem is a copy with a data-dependent destination. The floor is one read of the mask (1 byte /
element), a read of the values that survive (with sector granularity: every value at density >= ~1/8,
only ~8% of the fp32 sectors at 1%) and one write of the survivors. The textbook form is three kernels
(count per tile, scan of the counts, scatter), which reads the mask twice: at 1% density that is ~2.3
instead of ~1.35 bytes / element. This kernel fuses the three, like CUB's single-pass select:

1. A program takes a tile of TILE elements. Its tile index comes from an atomic ticket, not
   program_id, so every tile it may wait on was handed out earlier and is already running: no
   deadlock whatever order the hardware starts programs in.
2. It loads the mask tile (TILE bytes, 16-byte vectors), counts the survivors and publishes the count
   at once in a 64-bit status word: flag in the high half (1 = tile count only, 2 = inclusive prefix),
   value in the low half, written with one atomic so value and flag are seen together (no fence).
3. It issues the loads of the surviving values (masked: sectors with no survivor are never read), then
   looks back over its predecessors' status words, WINDOW at a time, summing tile counts until it
   meets an inclusive prefix; it publishes its own inclusive prefix.
4. The in-tile exclusive prefix sum of the mask gives each survivor its slot: base + rank. The
   survivors of a tile land in one contiguous run of the output, so the stores coalesce.
The last tile writes the total count; the host reads it once (.item(), the only sync) to return a
view of the first count elements of an N-element buffer.

Side traffic: one 8-byte status word per TILE elements (zeroed by a memset), ~0.1% of the mask bytes.

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-03-h200-late/profiles/ (the same expert code), summed up in that run's README.md, "Profiles".
In all four, `_compact_kernel` takes 128 registers at an occupancy of 24% of 25% possible.
- dgc-gradient-sparsify: 7.1% of SOL, bound by HBM; expert 1101.8 us (standard error 337.6 us), SOL 78.7 us.
  Profile (stream_compaction__dgc-gradient-sparsify.txt): kernel 561.1 us; latency-bound (memory 55%, SM 48%);
  DRAM 769.69 GB/s, 16%.
- relu-llama2-70b-ffn-bf16: 10.1% of SOL, bound by HBM; expert 717.0 us, SOL 72.2 us.
  Profile (stream_compaction__relu-llama2-70b-ffn-bf16.txt): kernel 252.9 us; latency-bound (memory 53%, SM 49%);
  DRAM 1.36 TB/s, 28%.
- nerf-occupied-samples: 14.3% of SOL, bound by HBM; expert 569.6 us, SOL 81.7 us.
  Profile (stream_compaction__nerf-occupied-samples.txt): kernel 174.5 us; memory 67% of peak, with ncu pointing at
  L1; DRAM 2.13 TB/s, 44%.
- depth-valid-pixels: 21.5% of SOL, bound by HBM; expert 584.6 us, SOL 125.5 us.
  Profile (stream_compaction__depth-valid-pixels.txt): kernel 241.1 us; memory 82% of peak, with ncu pointing at L1;
  DRAM 2.29 TB/s, 48%.
Why, in two parts. Outside the kernel (the gap between each latency and its kernel time): the solution reads the
count back (.item()) before it returns, as the output's length requires, so the host's part of a call (the
zero-fill, the launch, the read) and the runtime guard's per-op Python are on the clock. benchmarks/guard_cost.py
measured the guard at 28-55% of the expert's timed latency (docs/runs/2026-12-03-h200-late/README.md). These
latencies move between runs of the same code (nerf 630.2 -> 569.6 us, depth 686.7 -> 584.6 against the run before:
docs/runs/2026-12-04-h200-b/README.md). The read of the count is the task's interface. In the kernel: latency-bound
at low density (dgc, relu), L1-busy at high density (nerf, depth). One tile per program of 4 warps with a look-back
leaves too few bytes in flight; more tiles in flight per SM are untried (docs/suite.md, "Workloads under 40% of SOL
in the seven re-timed tasks, profiled again (call 4)").
"""

import torch
import triton
import triton.language as tl

_AGGREGATE = tl.constexpr(1)
_INCLUSIVE = tl.constexpr(2)


@triton.jit
def _compact_kernel(
    values_ptr,
    mask_ptr,  # uint8 view of the bool mask
    out_ptr,
    status_ptr,  # [num_tiles + 2] int64, zeroed: (flag << 32) | value per tile, then the ticket, then the count
    n,
    num_tiles,
    TILE: tl.constexpr,
    WINDOW: tl.constexpr,
):
    # dynamic tile order: tiles with smaller tickets are already resident when we wait on them
    tile = tl.atomic_add(status_ptr + num_tiles, 1).to(tl.int32)
    offs = tile * TILE + tl.arange(0, TILE)
    in_bounds = offs < n

    # the one read of the mask: 1 byte / element
    keep = tl.load(mask_ptr + offs, mask=in_bounds, other=0, eviction_policy="evict_first") != 0
    keep_i = keep.to(tl.int32)
    local = tl.sum(keep_i, axis=0).to(tl.int64)

    # publish this tile's count at once (tile 0's count is already its inclusive prefix)
    if tile == 0:
        tl.atomic_xchg(status_ptr + tile, (_INCLUSIVE << 32) | local, sem="relaxed")
    else:
        tl.atomic_xchg(status_ptr + tile, (_AGGREGATE << 32) | local, sem="relaxed")

    # issue the survivors' loads before waiting: a sector with no survivor is not read at all
    vals = tl.load(values_ptr + offs, mask=keep, eviction_policy="evict_first")
    # in-tile rank of each survivor (exclusive prefix sum of the mask)
    rank = tl.cumsum(keep_i, axis=0) - keep_i

    # decoupled look-back: sum predecessors' counts, WINDOW words per probe, up to an inclusive prefix
    k = tl.arange(0, WINDOW)
    base = local * 0
    j0 = tile - 1
    done = (tile == 0).to(tl.int32)
    while done == 0:
        j = j0 - k
        valid = j >= 0
        word = tl.atomic_add(status_ptr + j, 0, mask=valid, sem="relaxed")
        # tiles before 0 read as an inclusive prefix of 0
        word = tl.where(valid, word, _INCLUSIVE << 32)
        flag = (word >> 32).to(tl.int32)
        value = word.to(tl.int32).to(tl.int64)  # the low half; counts < 2^31
        first_incl = tl.min(tl.where(flag == _INCLUSIVE, k, WINDOW), axis=0)
        upto = k <= first_incl
        # every word up to the nearest inclusive one must be published (flag != 0)
        ready = tl.min(tl.where(upto, flag, 1), axis=0) > 0
        if ready:
            base += tl.sum(tl.where(upto, value, 0), axis=0)
            # stop at an inclusive word; otherwise all WINDOW were tile counts: probe the next window
            done = (first_incl < WINDOW).to(tl.int32)
            j0 -= WINDOW

    if tile > 0:
        tl.atomic_xchg(status_ptr + tile, (_INCLUSIVE << 32) | (base + local), sem="relaxed")
    if tile == num_tiles - 1:
        tl.store(status_ptr + num_tiles + 1, base + local)

    # the one write of the survivors, a contiguous run starting at base
    tl.store(out_ptr + (base + rank), vals, mask=keep)


# 4096 elements per tile: 32 per thread at 4 warps (two 16-byte mask vectors, eight fp32 vectors), 65536 tiles at
# N = 2^28, so the status words stay ~0.2% of the traffic. On an H200 (2026-12-03) this beat 8192 on 8 warps on
# three of the four workloads (763 -> 666 us at 1% density) and lost on nerf-occupied-samples (323 -> 366 us)
_TILE = 4096
_WINDOW = 32
_NUM_WARPS = 4


def solution(values, mask):
    assert values.dim() == 1 and mask.shape == values.shape and mask.dtype == torch.bool
    assert values.is_contiguous() and mask.is_contiguous()
    n = values.numel()
    assert n < 2**31, "int32 element offsets"
    out = torch.empty_like(values)
    if n == 0:
        return out, torch.zeros((), dtype=torch.int64, device=values.device)

    num_tiles = triton.cdiv(n, _TILE)
    # the tiles' status words, the ticket and the count in one zeroed buffer: one allocation and one memset
    status = torch.zeros(num_tiles + 2, dtype=torch.int64, device=values.device)
    _compact_kernel[(num_tiles,)](
        values, mask.view(torch.uint8), out, status, n, num_tiles, TILE=_TILE, WINDOW=_WINDOW, num_warps=_NUM_WARPS
    )  # fmt: skip
    count = status[num_tiles + 1]
    # the output length is data-dependent: one scalar read, then a view
    return out[: int(count.item())], count
