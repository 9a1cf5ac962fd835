"""Segmented linear recurrence h[t] = a[t] * h[t-1] + b[t] in one pass with decoupled look-back.

The recurrence is a scan under the associative operator on pairs (a, b):
    (a1, b1) o (a2, b2) = (a1 * a2, a2 * b1 + b2)
whose running composition from a sequence start is (prod of a, h). A sequence start is encoded by
setting a = 0 there: the operator then forgets everything to its left, so one scan runs across all
the packed sequences without a branch, and restarts cost nothing.

Memory: a and b are read once and h written once, 12 bytes per element; the problem's floor is the
same (3 * T * D * 4 bytes). A classic three-kernel chunked scan (chunk aggregates, scan of aggregates,
re-scan with carries) reads a and b twice (20 bytes / element) and can reach 60% of that floor at
best; this kernel does it in one pass, like CUB's single-pass scan with decoupled look-back:

0. A small pre-pass marks the sequence starts: one int8 per token (T bytes, a binary search of
   `offsets` per token), so the main kernel reads 1 byte per row instead of searching per tile.
1. Each main program owns a tile of CHUNK time steps x BLOCK_D channels. Its tile index comes from an
   atomic ticket, not program_id, so every tile it waits on was handed out earlier and is already
   running: no deadlock whatever order the hardware starts programs in.
2. It loads a, b (coalesced along D) and the start marks, zeroes a at starts and scans the tile along
   time with tl.associative_scan.
3. It publishes its tile aggregate (A, B) at once. If the tile holds a sequence start, the aggregate
   does not depend on anything to its left: it is published directly as the inclusive state.
4. If its first row is not a sequence start it needs the state entering the tile: it walks back over
   its predecessors' published states (same channels), folding aggregates until it meets an
   inclusive state, then publishes its own inclusive state. Predecessors publish aggregates before
   they wait, so the walk is short, and tiles holding a start cut every chain.
5. h = H_local + A_prefix * carry, stored once.

The published state of one (tile, channel) is a single 64-bit word: the fp32 bits of B in the high
half and, in the low half, A's bits with the sign bit set (aggregate; A >= 0 so the sign is free) or
a NaN pattern (inclusive; B is then h). Zero means "not yet". Writing and reading one word with a
64-bit atomic makes value and flag visible together: no fence, no barrier, no second load, which is
what makes the look-back cheap (a fenced flag costs several memory round trips per tile).

Side traffic: the state words are 8 / CHUNK bytes per element (memset + one write + a few reads,
~2% of 12 bytes at CHUNK = 64), the start marks T bytes.

Tiling: 64 time steps x 32 channels (128 contiguous bytes per row: full coalesced lines), 2 warps,
16 values per thread per tensor. Small tiles keep registers low, so many tiles are resident per SM
and each SM keeps streaming while some of its tiles wait in the look-back; T=65536, D=4096 gives
131072 tiles. Measured on an H200 (one run each; a copy of b ran at 4.2 TB/s): this kernel reaches
0.73 (4 long documents) to 0.75 (packed / many short) of SOL at 4.3 TB/s -- 322 us for 32k x 2560,
~995 us for 64k x 4096 and 128k x 2048, 753 us for 128k x 1536. With 64 x 64 tiles for comparison: the
bare stream (no look-back, no ticket, no start marks) ran at ~0.9 of SOL, a fenced flag plus separate
value loads at 0.68-0.71, and a binary search of `offsets` inside every tile at 0.63-0.66; a 3-pass
scan is bounded by 0.6.

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fraction, bound, expert latency and SOL time are from that run's suite.json.
- mamba-370m-sft: 38.8% of SOL, bound by HBM; expert 1805.0 us with a standard error of 800 us, SOL 700.4 us.
  This is one disturbed measurement, not a reason of the kernel: four samples, the last of them stopped by the time
  budget at 39.6% standard error, while the same eval timed the rungs steadily. The run before
  (docs/runs/2026-12-04-h200) read 998.7 us for the same code, 70% of SOL (sol_fraction 0.703 in its suite.json).
  docs/runs/2026-12-04-h200-b/README.md, "What moved SOL down", records this. No profile of its own: it was over 40%
  in the runs whose workloads under 40% were profiled.
"""

import torch
import triton
import triton.language as tl

# low half of a published state word: 0 = nothing yet, sign bit set = aggregate, this NaN = inclusive
_INCLUSIVE = tl.constexpr(0x7FC00000)
_SIGN = tl.constexpr(-(2**31))


@triton.jit
def _combine(a_l, b_l, a_r, b_r):
    # (a_l, b_l) then (a_r, b_r): the left state decays by a_r before b_r is added
    return a_l * a_r, a_r * b_l + b_r


@triton.jit
def _mark_starts_kernel(offsets_ptr, starts_ptr, T, num_seqs, BLOCK_T: tl.constexpr, N_SEARCH: tl.constexpr):
    # starts[t] = 1 if some offsets[i] == t (i < num_seqs); lo ends as the last i with offsets[i] <= t.
    # Traffic: T bytes written; the offsets (a few KB) are re-read from L1/L2, not from HBM.
    offs_t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    lo = tl.zeros([BLOCK_T], dtype=tl.int32)
    hi = tl.full([BLOCK_T], 0, dtype=tl.int32) + num_seqs
    for _ in range(N_SEARCH):
        mid = (lo + hi) // 2
        go_right = tl.load(offsets_ptr + mid).to(tl.int32) <= offs_t
        lo = tl.where(go_right, mid, lo)
        hi = tl.where(go_right, hi, mid)
    is_start = tl.load(offsets_ptr + lo).to(tl.int32) == offs_t
    tl.store(starts_ptr + offs_t, is_start.to(tl.int8), mask=offs_t < T)


@triton.jit
def _pack(lo_bits, b):
    hi = b.to(tl.int32, bitcast=True).to(tl.int64) << 32
    return hi | lo_bits.to(tl.uint32, bitcast=True).to(tl.int64)


@triton.jit
def _segmented_scan_kernel(
    a_ptr,
    b_ptr,
    h_ptr,
    starts_ptr,
    status_ptr,  # [num_chunks, D] int64 published tile states, zeroed
    ticket_ptr,  # [1] int32, zeroed
    T,
    D,
    stride_t,
    n_dblocks,
    CHUNK: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    # dynamic tile order: tiles with smaller tickets are already resident when we wait on them
    tile = tl.atomic_add(ticket_ptr, 1)
    pid_t = tile // n_dblocks
    pid_d = tile % n_dblocks

    rows = tl.arange(0, CHUNK)
    offs_t = pid_t * CHUNK + rows
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_t = offs_t < T
    mask_d = offs_d < D
    mask = mask_t[:, None] & mask_d[None, :]

    # the one read of a and b (8 bytes / element); padded rows past T are the identity (1, 0)
    ptrs = offs_t.to(tl.int64)[:, None] * stride_t + offs_d[None, :]
    a = tl.load(a_ptr + ptrs, mask=mask, other=1.0, eviction_policy="evict_first")
    b = tl.load(b_ptr + ptrs, mask=mask, other=0.0, eviction_policy="evict_first")
    is_start = tl.load(starts_ptr + offs_t, mask=mask_t, other=0) != 0
    has_start = tl.max(is_start.to(tl.int32), axis=0) > 0
    first_is_start = tl.sum(tl.where(rows == 0, is_start.to(tl.int32), 0), axis=0) > 0

    # restart = forget the left state
    a = tl.where(is_start[:, None], 0.0, a)
    a_pref, h_loc = tl.associative_scan((a, b), 0, _combine)
    last = (rows == CHUNK - 1)[:, None]
    a_tile = tl.sum(tl.where(last, a_pref, 0.0), axis=0)
    b_tile = tl.sum(tl.where(last, h_loc, 0.0), axis=0)

    # publish at once: inclusive if a start cuts the tile off from the left, else the aggregate
    state_ptrs = status_ptr + pid_t.to(tl.int64) * D + offs_d
    if has_start:
        tl.atomic_xchg(state_ptrs, _pack(tl.full([BLOCK_D], _INCLUSIVE, tl.int32), b_tile), mask=mask_d, sem="relaxed")
    else:
        tl.atomic_xchg(state_ptrs, _pack(a_tile.to(tl.int32, bitcast=True) | _SIGN, b_tile), mask=mask_d, sem="relaxed")

    # look back, per channel, for the state entering the tile (only if row 0 continues a sequence).
    # Each channel's words are written independently, so each channel walks on its own.
    carry_a = tl.full([BLOCK_D], 1.0, dtype=tl.float32)
    carry_b = tl.zeros([BLOCK_D], dtype=tl.float32)
    done = (~mask_d) | first_is_start
    j = tl.zeros([BLOCK_D], dtype=tl.int64) + pid_t - 1
    while tl.min(done.to(tl.int32), axis=0) == 0:
        word = tl.atomic_add(status_ptr + j * D + offs_d, 0, mask=~done, sem="relaxed")
        lo = word.to(tl.int32)
        v_b = (word >> 32).to(tl.int32).to(tl.float32, bitcast=True)
        v_a = (lo & 0x7FFFFFFF).to(tl.float32, bitcast=True)
        ready = (lo != 0) & ~done
        inclusive = ready & (lo == _INCLUSIVE)
        aggregate = ready & (lo != _INCLUSIVE)
        carry_b = tl.where(ready, carry_a * v_b + carry_b, carry_b)
        carry_a = tl.where(aggregate, carry_a * v_a, carry_a)
        j = tl.where(aggregate, j - 1, j)
        done = done | inclusive
    # carry_b is now h at the row before the tile (0 if the tile starts a sequence)

    if has_start == 0:
        tl.atomic_xchg(
            state_ptrs,
            _pack(tl.full([BLOCK_D], _INCLUSIVE, tl.int32), a_tile * carry_b + b_tile),
            mask=mask_d,
            sem="relaxed",
        )

    # the one write of h (4 bytes / element); rows after an in-tile start have a_pref = 0
    h = h_loc + a_pref * carry_b[None, :]
    tl.store(h_ptr + ptrs, h, mask=mask)


def _launch(a, b, offsets, CHUNK, BLOCK_D, num_warps):
    T, D = a.shape
    num_seqs = offsets.numel() - 1
    h = torch.empty_like(b)
    num_chunks = triton.cdiv(T, CHUNK)
    n_dblocks = triton.cdiv(D, BLOCK_D)

    # pre-pass: T bytes of start marks (binary search: the interval [0, num_seqs] halves each step)
    starts = torch.empty(T, dtype=torch.int8, device=a.device)
    BLOCK_T = 1024
    _mark_starts_kernel[(triton.cdiv(T, BLOCK_T),)](
        offsets, starts, T, num_seqs, BLOCK_T=BLOCK_T, N_SEARCH=max(1, num_seqs.bit_length()), num_warps=4
    )

    status = torch.zeros((num_chunks, D), dtype=torch.int64, device=a.device)
    ticket = torch.zeros(1, dtype=torch.int32, device=a.device)
    _segmented_scan_kernel[(num_chunks * n_dblocks,)](
        a,
        b,
        h,
        starts,
        status,
        ticket,
        T,
        D,
        a.stride(0),
        n_dblocks,
        CHUNK=CHUNK,
        BLOCK_D=BLOCK_D,
        num_warps=num_warps,
    )
    return h


def solution(a, b, offsets):
    assert a.dim() == 2 and a.shape == b.shape, "a and b must be [T, D] of the same shape"
    assert a.dtype == torch.float32 and b.dtype == torch.float32
    assert offsets.dim() == 1 and offsets.dtype in (torch.int32, torch.int64) and offsets.numel() >= 2
    a = a.contiguous()
    b = b.contiguous()
    offsets = offsets.contiguous()
    if a.numel() == 0:
        return torch.empty_like(b)
    # 64 x 32 fp32 tiles, 2 warps: 16 values per thread per tensor (measured best of 64x64/4, 32x64/2,
    # 128x32/4, 128x32/2, 32x128/4, 64x16/1 on the H200)
    return _launch(a, b, offsets, CHUNK=64, BLOCK_D=32, num_warps=2)
