"""Ladder rung 2 (l1.py + L2.1, L2.2, L2.3): one pass over memory with decoupled look-back.

h[t] = a[t] * h[t-1] + b[t], restarting from h = 0 at every sequence start.

Over l1.py:
- L2.1: one main kernel reads a and b once and writes h once (12 bytes / element instead of 20). Each program
  scans its (time chunk, channel block) tile in registers, publishes the tile's aggregate at once (or, if the
  tile holds a sequence start, its inclusive state, which then does not depend on the left), walks back over
  its predecessors folding aggregates until it meets an inclusive state, publishes its own inclusive state
  and stores h = H_local + A_prefix * carry. Tiles whose first row starts a sequence skip the look-back.
- L2.2: the tile index comes from an atomic ticket, so every tile a program waits on was handed to a program
  already running (no deadlock whatever the launch order). A published state is one 64-bit word per
  (tile, channel): B's fp32 bits in the high half and, in the low half, A's bits with the sign bit set
  (aggregate) or a NaN pattern (inclusive); 0 means not yet. Written and read with 64-bit atomics, value and
  flag become visible together without a fence; the look-back runs per channel. Words and ticket are zeroed
  per call.
- L2.3: a small pre-pass writes one int8 start mark per token (a binary search of `offsets` per token), so
  the main kernel reads CHUNK bytes of marks per tile instead of searching on its critical path.

Unchanged from l1.py (left for L3): 64 x 64 tiles with 4 warps, default cache policy on the a and b loads,
padded rows past T loaded as 0 (the ragged last tile's aggregate is never read). As in l1.py the tile
aggregate is the scan's last row, taken with a masked sum, and the tile flags are scalar reductions of the
start marks.
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

    # the one read of a and b (8 bytes / element)
    ptrs = offs_t.to(tl.int64)[:, None] * stride_t + offs_d[None, :]
    a = tl.load(a_ptr + ptrs, mask=mask, other=0.0)
    b = tl.load(b_ptr + ptrs, mask=mask, other=0.0)
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
    return _launch(a, b, offsets, CHUNK=64, BLOCK_D=64, num_warps=4)
