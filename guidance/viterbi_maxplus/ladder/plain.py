"""Ladder rung 0 (plain): the reference's time loop on the host, one kernel launch per step, no guidance.

score_t[j] = max_i(score_{t-1}[i] + trans[i, j]) + em[t, j]; path by backtrace; first index on ties.

Like the reference, the host walks t = 1 .. T - 1 and launches one step kernel per t over the chains (one program
per chain). A step reads the previous score vector from global memory, loads the [S, S] transition matrix again,
forms the candidates score[i] + trans[i, j], takes the max over i and, in a second reduction, the lowest i that
reaches it, then stores the new score vector (two buffers used in turn) and the step's int64 backpointers. A
last kernel takes each chain's final max and its lowest argmax and follows the backpointers back to t = 0.

Traffic per chain and step: the score vector in and out (8 * S bytes), the emission row (4 * S) and 8 * S bytes of
backpointers, five times the emission bytes, plus the transition matrix (4 * S^2, from L2); T launches.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _step_kernel(em_ptr, trans_ptr, score_in_ptr, score_out_ptr, bp_ptr, t, T, S, stride_in, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    prev = tl.arange(0, BLOCK_S)  # i, along rows
    nxt = tl.arange(0, BLOCK_S)  # j, along columns
    tile_ok = (prev < S)[:, None] & (nxt < S)[None, :]
    trans = tl.load(trans_ptr + prev[:, None] * S + nxt[None, :], mask=tile_ok, other=float("-inf"))
    score = tl.load(score_in_ptr + b * stride_in + prev, mask=prev < S, other=float("-inf"))
    cand = score[:, None] + trans
    best = tl.max(cand, axis=0)
    # the lowest previous state that reaches the maximum (padded rows are -inf and come after the real ones)
    arg = tl.min(tl.where(cand == best[None, :], prev[:, None], BLOCK_S), axis=0)
    em = tl.load(em_ptr + b * T * S + t * S + nxt, mask=nxt < S, other=0.0)
    tl.store(score_out_ptr + b * S + nxt, best + em, mask=nxt < S)
    tl.store(bp_ptr + b * T * S + t * S + nxt, arg.to(tl.int64), mask=nxt < S)


@triton.jit
def _backtrace_kernel(score_ptr, bp_ptr, path_ptr, best_ptr, T, S, stride_score, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    states = tl.arange(0, BLOCK_S)
    score = tl.load(score_ptr + b * stride_score + states, mask=states < S, other=float("-inf"))
    best = tl.max(score, axis=0)
    state = tl.min(tl.where(score == best, states, BLOCK_S), axis=0).to(tl.int64)
    tl.store(best_ptr + b, best)
    tl.store(path_ptr + b * T + T - 1, state)
    for k in range(1, T):
        t = T - k
        state = tl.load(bp_ptr + b * T * S + t * S + state)
        tl.store(path_ptr + b * T + t - 1, state)


def solution(emissions: torch.Tensor, transitions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert emissions.ndim == 3 and emissions.is_contiguous() and emissions.dtype == torch.float32, "em [B, T, S]"
    batch, steps, states = emissions.shape
    assert transitions.shape == (states, states) and transitions.is_contiguous(), "trans [S, S]"
    path = torch.empty((batch, steps), dtype=torch.int64, device=emissions.device)
    best_score = torch.empty(batch, dtype=torch.float32, device=emissions.device)
    if batch == 0:
        return path, best_score
    backptr = torch.empty((batch, steps, states), dtype=torch.int64, device=emissions.device)
    scores = [torch.empty((batch, states), dtype=torch.float32, device=emissions.device) for _ in range(2)]
    block_s = triton.next_power_of_2(states)

    # step 0's scores are the first emission row of each chain, read in place (row stride T * S)
    score_in, stride_in = emissions, steps * states
    for t in range(1, steps):
        score_out = scores[t % 2]
        _step_kernel[(batch,)](
            emissions, transitions, score_in, score_out, backptr, t, steps, states, stride_in, BLOCK_S=block_s
        )
        score_in, stride_in = score_out, states
    _backtrace_kernel[(batch,)](score_in, backptr, path, best_score, steps, states, stride_in, BLOCK_S=block_s)
    return path, best_score
