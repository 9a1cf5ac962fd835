"""Histogram with privatised on-chip sub-histograms, persistent programs and one merge per program.

counts[b] = #{i : x[i] == b}, int64, x uint8 or int32 in [0, bins).

The floor is one read of x (1 or 4 bytes / element) and one write of the counts. What keeps a naive
kernel (one global atomic per element) far from it is contention: every update is an L2 atomic, and
updates of the same hot bin -- a flat image region, the token "the" -- serialise there. Design:

- Privatise (L1.1). Each program counts its data on chip: tl.histogram of a block lowers to a
  shared-memory sub-histogram (shared atomics: on the SM, far cheaper than L2 atomics, and private to the
  program, so no other SM competes for a hot bin), read back into registers.
- Hot head only (L1.2). On chip fit HEAD = min(next_pow2(bins), 4096) bins (16 KB of shared memory,
  16 int32 registers per thread at 8 warps). Small alphabets (256 image levels, 4096 raw levels) are
  privatised whole. For 32000-65536 token ids only ids < 4096 are, which under Zipf's law (and BPE's
  frequent-tokens-get-low-ids order) is ~80% of all tokens; the cold tail, spread over tens of
  thousands of bins, goes to global atomics that rarely collide.
- Persistent accumulation (L2.1, L2.2). Two programs per SM walk the blocks with a grid stride and keep
  acc += tl.histogram(block) in registers for their whole share; the merge into the output is
  HEAD int64 atomics per program, once (264 x 4096 = 1.1M at most, vs 2^26-2^27 elements), masked to
  bins the program actually saw.
- Tiles (L3.1-L3.3). Each tl.histogram call zeroes and reads back its shared sub-histogram (HEAD / 256
  words per thread), so blocks are large: 8192 int32 (eight 16-byte vectors per thread) or 16384 uint8
  (four 16-byte vectors per thread). The next block's loads are issued before the current block is
  counted, so DRAM stays busy during the shared-memory phase. Data loads are evict_first (read once).
"""

import torch
import triton
import triton.language as tl

_MAX_HEAD = 4096  # 16 KB of int32 counts in shared memory, 16 registers per thread for the accumulator


@triton.jit
def _hist_kernel(
    x_ptr,
    counts_ptr,  # [bins] int64, zeroed
    n,
    bins,
    num_blocks,
    BLOCK: tl.constexpr,
    HEAD: tl.constexpr,
    HAS_TAIL: tl.constexpr,
):
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    lanes = tl.arange(0, BLOCK)

    # private sub-histogram of the hot head, in registers for the program's whole share of the data
    acc = tl.zeros([HEAD], dtype=tl.int32)

    # the grid never exceeds num_blocks, so this program's first block exists
    offs = pid * BLOCK + lanes
    x = tl.load(x_ptr + offs, mask=offs < n, other=0, eviction_policy="evict_first")
    for block in range(pid, num_blocks, num_progs):
        # issue the next block's loads first (masked off past the end: no traffic)
        offs_next = (block + num_progs) * BLOCK + lanes
        x_next = tl.load(x_ptr + offs_next, mask=offs_next < n, other=0, eviction_policy="evict_first")

        in_bounds = offs < n
        xi = x.to(tl.int32)
        in_head = in_bounds & (xi < HEAD)
        # on-chip count of this block (shared-memory atomics), added to the register accumulator
        acc += tl.histogram(tl.where(in_head, xi, 0), HEAD, mask=in_head)
        if HAS_TAIL:
            # cold ids of a large vocabulary: spread over many bins, global atomics rarely collide
            tl.atomic_add(counts_ptr + xi, 1, mask=in_bounds & (xi >= HEAD), sem="relaxed")

        x = x_next
        offs = offs_next

    # one merge per program: HEAD atomics at most, only for bins this program saw
    bin_ids = tl.arange(0, HEAD)
    tl.atomic_add(counts_ptr + bin_ids, acc.to(tl.int64), mask=(bin_ids < bins) & (acc > 0), sem="relaxed")


_SM_COUNT = {}


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # interpreter: a small grid still exercises the grid-stride loop
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


# 8 warps x 2 programs per SM: 512 threads, enough loads in flight with 32-64 elements per thread,
# while the per-program merge (HEAD atomics) stays small next to the data
_NUM_WARPS = 8
_PROGRAMS_PER_SM = 2


def solution(x, bins):
    assert x.dim() == 1 and x.is_contiguous() and x.dtype in (torch.uint8, torch.int32)
    n = x.numel()
    assert n < 2**31, "int32 element offsets"
    counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
    if n == 0:
        return counts

    head = min(triton.next_power_of_2(bins), _MAX_HEAD)
    # per thread and block: 64 uint8 (four 16-byte vectors) or 32 int32 (eight 16-byte vectors)
    block = 16384 if x.dtype == torch.uint8 else 8192
    num_blocks = triton.cdiv(n, block)
    grid = (min(num_blocks, _PROGRAMS_PER_SM * _num_sms(x.device)),)
    _hist_kernel[grid](
        x,
        counts,
        n,
        bins,
        num_blocks,
        BLOCK=block,
        HEAD=head,
        HAS_TAIL=bins > head,
        num_warps=_NUM_WARPS,
    )
    return counts
