"""Ladder rung 2 (L1 + L2.1): one program per chain owns the recurrence, the final argmax and the backtrace.

score_t[j] = max_i(score_{t-1}[i] + trans[i, j]) + em[t, j]; path by backtrace; first index on ties.

Over l1.py:
- L2.1: the forward pass, the final max and lowest argmax, and the backtrace run in the same program, in one
  launch: the final score vector never leaves registers, and the backtrace follows state = bp[t, state] with
  scalar loads of the backpointers the program has just written (still in L2), behind a tl.debug_barrier()
  since other threads of the program stored them.

Left to the expert (L3): two warps instead of the default four (each of the T dependent steps waits for its
reduction to cross the program's warps).
"""

import torch
import triton
import triton.language as tl


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
    bp_torch, bp_tl = (torch.int8, tl.int8) if states <= 128 else (torch.int16, tl.int16)
    backptr = torch.empty((batch, steps, states), dtype=bp_torch, device=emissions.device)
    block_s = max(16, triton.next_power_of_2(states))
    _viterbi_kernel[(batch,)](
        emissions, transitions, backptr, path, best_score, steps, states, BLOCK_S=block_s, BP_DTYPE=bp_tl
    )
    return path, best_score
