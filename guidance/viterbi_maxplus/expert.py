"""Viterbi decoding with one program per chain: the max-plus recurrence stays on chip for all T steps.

score_t[j] = max_i(score_{t-1}[i] + trans[i, j]) + em[t, j]; path by backtrace; first index on ties.

* The recurrence is a max-plus matrix-vector product per step: the [S, S] transition matrix is loaded once into
  registers and the score vector never leaves the program; each step reads one emission row (S * 4 bytes) and
  writes one row of backpointers, int8 (S <= 128) or int16: B * T * S bytes written and T bytes read back, against
  4 * B * T * S of emissions.
* One program owns a whole chain, forward pass and backtrace: no second launch, no state or backpointer round trip
  through the host, and the backpointers it reads back are the ones it just wrote (L2-resident). The backtrace is a
  chain of T dependent scalar loads.
* Two warps, one copy of the matrix (L3.1). Each step is a chain: its reduction must finish before the next step
  can start, so what matters is the latency of one step, not throughput; with two warps the step's reduction
  crosses the fewest warps that still hold the [64, 64] tile without spilling. Measured on the H200 (2026-12-03,
  `benchmarks/viterbi_designs.py`, docs/runs/2026-12-03-h200-peers/viterbi_designs.log), microseconds:

  | design | ontonotes S=37 | ptb S=48 | speech-hmm S=128 |
  | --- | ---: | ---: | ---: |
  | this kernel, 2 warps | 663.8 | 1309.2 | 2356.9 |
  | this kernel, 4 warps (the L1+L2 rung) | 930.7 | 2029.2 | 2638.2 |
  | trans and trans^T alternating (the previous expert: 4 warps, 16 at S = 128) | 4435.1 | 2429.1 | 7349.8 |
  | alternating, 2 warps | 3403.5 | 1322.0 | 13998.1 |

  The previous expert kept both the matrix and its transpose in registers so that no step needed a layout
  conversion; the second copy cost more (register pressure, spills at S = 128 on 2 warps) than the conversion it
  saved.

Traffic per chain: T * S * 4 (emissions) + S * S * 4 (transitions, from L2 after the first chain)
+ (T - 1) * S * bp bytes written + T * bp bytes read + T * 8 (path) + 4 (score).

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-04-h200/profiles/ (the same expert code), summed up in that run's README.md, "Profiles".
This run's FP32 ceiling is 58.3 TFLOP/s, measured as a chain difference, against 34.1 in the run before, so
speech-hmm-128 reads about half its former fraction (10.8% -> 6.3%) and ontonotes-ner-crf is now bound by its
dependency floor (docs/runs/2026-12-04-h200-b/README.md, "What moved SOL down").
- ontonotes-ner-crf: 6.2% of SOL, bound by the dependency floor; expert 663.2 us, SOL 41.2 us.
  Profile (viterbi_maxplus__ontonotes-ner-crf.txt): `_viterbi_kernel` 663.6 us; compute-bound by ncu (SM 62%,
  memory 24%); FP32 3.28 TFLOP/s, 5% of the FP32 peak; DRAM 156.20 GB/s, 3%; grid 1024 x 64 threads, 128
  registers, occupancy 21% of 25% possible.
- ptb-pos-long-docs: 6.3% of SOL, bound by the dependency floor; expert 1306.3 us, SOL 82.5 us.
  Profile (viterbi_maxplus__ptb-pos-long-docs.txt): `_viterbi_kernel` 1.301 ms; latency-bound (memory 36%, SM
  35%); ncu "only 0.5 full waves"; grid 512 x 64 threads, 126 registers, occupancy 12% of 25% possible.
- speech-hmm-128: 6.3% of SOL, bound by FP32; expert 2349.7 us, SOL 147.9 us.
  Profile (viterbi_maxplus__speech-hmm-128.txt): `_viterbi_kernel` 2.343 ms; latency-bound (memory 21%, SM 37%);
  FP32 1.85 TFLOP/s, 3% of the FP32 peak; ncu "only 0.5 full waves"; grid 256 x 64 threads, 255 registers,
  occupancy 6% of 12% possible.
Why, all three: one program of 2 warps a sequence, an S x S max-plus step per token, each step waiting on the last.
The SOL counts the step's S x S adds and compares and T - 1 dependent steps at the measured step (0.081 us in this
run). Most of a step's instructions are not the counted ones: the index kept beside each compare for
tl.max(..., return_indices=True), the reduction across lanes and the 2 warps, and most likely moving the new scores
from the reduction's layout back to the one the next step broadcasts (docs/suite.md, "Workloads under 40% of SOL,
and why (profiled)"). So on ontonotes the SM is 62% busy while the FP32 pipes run at 5% of their peak, and on ptb
and speech half a wave of programs leaves nothing to hide each step's latency. Fewer instructions per step (the
value and its index packed into one compare, a layout that needs no conversion between steps) are untried; nothing
here is shown to be the chip's limit.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 2  # see the table above


@triton.jit
def _viterbi_kernel(em_ptr, trans_ptr, bp_ptr, path_ptr, best_ptr, T, S, BLOCK_S: tl.constexpr, BP_DTYPE: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    prev = tl.arange(0, BLOCK_S)  # i, along rows
    nxt = tl.arange(0, BLOCK_S)  # j, along columns
    tile_ok = (prev < S)[:, None] & (nxt < S)[None, :]
    trans = tl.load(trans_ptr + prev[:, None] * S + nxt[None, :], mask=tile_ok, other=float("-inf"))
    em_row = em_ptr + b * T * S
    bp_row = bp_ptr + b * T * S
    score = tl.load(em_row + prev, mask=prev < S, other=float("-inf"))
    for t in range(1, T):
        best, arg = tl.max(score[:, None] + trans, axis=0, return_indices=True)
        tl.store(bp_row + t * S + nxt, arg.to(BP_DTYPE), mask=nxt < S)
        score = best + tl.load(em_row + t * S + nxt, mask=nxt < S, other=float("-inf"))

    best, last = tl.max(score, axis=0, return_indices=True)
    tl.store(best_ptr + b, best)
    # the backpointers were stored by other threads of this program: make them visible first
    tl.debug_barrier()
    path_row = path_ptr + b * T
    state = last.to(tl.int32)
    tl.store(path_row + T - 1, state.to(tl.int64))
    for k in range(1, T):
        t = T - k
        state = tl.load(bp_row + t * S + state).to(tl.int32)
        tl.store(path_row + t - 1, state.to(tl.int64))


def solution(emissions: torch.Tensor, transitions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert emissions.ndim == 3 and emissions.is_contiguous() and emissions.dtype == torch.float32, "em [B, T, S]"
    batch, steps, states = emissions.shape
    assert transitions.shape == (states, states) and transitions.is_contiguous(), "trans [S, S]"
    path = torch.empty((batch, steps), dtype=torch.int64, device=emissions.device)
    best_score = torch.empty(batch, dtype=torch.float32, device=emissions.device)
    if batch == 0:
        return path, best_score
    # Backpointers: one byte per (step, state) while indices fit in int8, else two.
    bp_torch, bp_tl = (torch.int8, tl.int8) if states <= 128 else (torch.int16, tl.int16)
    backptr = torch.empty((batch, steps, states), dtype=bp_torch, device=emissions.device)
    block_s = max(16, triton.next_power_of_2(states))
    _viterbi_kernel[(batch,)](
        emissions, transitions, backptr, path, best_score, steps, states,
        BLOCK_S=block_s, BP_DTYPE=bp_tl, num_warps=NUM_WARPS,
    )  # fmt: skip
    return path, best_score
