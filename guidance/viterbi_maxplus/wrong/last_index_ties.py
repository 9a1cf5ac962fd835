"""The expert kernel with every argmax tie broken towards the highest index (a max over the tied indices, not
`return_indices_tie_break_left=False`, which Triton's interpreter runs 40x slower).

Every max is right, so best_score matches, but wherever two previous states give the same candidate
score the backpointer names the later one; torch.max(dim) and the task take the lowest. The scores lie
on a 1/8 grid, so ties are common and the paths differ on every workload.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _viterbi_kernel(
    em_ptr,
    trans_ptr,
    bp_ptr,
    path_ptr,
    score_ptr,
    T,
    S,
    BLOCK_S: tl.constexpr,
    BP_DTYPE: tl.constexpr,
):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_S)
    cols = tl.arange(0, BLOCK_S)
    row_ok = rows < S
    col_ok = cols < S
    tile_ok = row_ok[:, None] & col_ok[None, :]
    # trans[i, j] with i (previous) along rows; trans_t[j, i] with j (next) along rows.
    trans = tl.load(trans_ptr + rows[:, None] * S + cols[None, :], mask=tile_ok, other=float("-inf"))
    trans_t = tl.load(trans_ptr + cols[None, :] * S + rows[:, None], mask=tile_ok, other=float("-inf"))

    em_row = em_ptr + b * T * S
    bp_row = bp_ptr + b * T * S
    # The score vector indexed along columns (it broadcasts over rows of trans_t).
    score_c = tl.load(em_row + cols, mask=col_ok, other=float("-inf"))
    for p in range(0, (T - 1) // 2):
        t = 1 + 2 * p
        em_r = tl.load(em_row + t * S + rows, mask=row_ok, other=float("-inf"))
        em_c = tl.load(em_row + (t + 1) * S + cols, mask=col_ok, other=float("-inf"))
        # step t: cand[j, i] = score[i] + trans[i, j]; best over i (axis 1), ties to the highest i (the bug)
        cand = score_c[None, :] + trans_t
        best_r = tl.max(cand, axis=1)
        arg_r = tl.max(tl.where(cand == best_r[:, None], cols[None, :], -1), axis=1)  # the highest tied i
        tl.store(bp_row + t * S + rows, arg_r.to(BP_DTYPE), mask=row_ok)
        score_r = best_r + em_r
        # step t + 1: cand[i, j] = score[i] + trans[i, j]; best over i (axis 0)
        cand = score_r[:, None] + trans
        best_c = tl.max(cand, axis=0)
        arg_c = tl.max(tl.where(cand == best_c[None, :], rows[:, None], -1), axis=0)
        tl.store(bp_row + (t + 1) * S + cols, arg_c.to(BP_DTYPE), mask=col_ok)
        score_c = best_c + em_c

    if (T - 1) % 2 == 1:
        # an odd number of steps: the last one lands along rows
        em_r = tl.load(em_row + (T - 1) * S + rows, mask=row_ok, other=float("-inf"))
        cand = score_c[None, :] + trans_t
        best_r = tl.max(cand, axis=1)
        arg_r = tl.max(tl.where(cand == best_r[:, None], cols[None, :], -1), axis=1)
        tl.store(bp_row + (T - 1) * S + rows, arg_r.to(BP_DTYPE), mask=row_ok)
        final = best_r + em_r
        best = tl.max(final, axis=0)
        last = tl.max(tl.where(final == best, rows, -1), axis=0)
    else:
        best = tl.max(score_c, axis=0)
        last = tl.max(tl.where(score_c == best, cols, -1), axis=0)
    tl.store(score_ptr + b, best)

    # The backpointers were stored by other threads of this program: make them visible first.
    tl.debug_barrier()
    path_row = path_ptr + b * T
    state = last.to(tl.int32)
    tl.store(path_row + T - 1, state.to(tl.int64))
    for k in range(1, T):
        t = T - k
        state = tl.load(bp_row + t * S + state).to(tl.int32)
        tl.store(path_row + t - 1, state.to(tl.int64))


def solution(emissions: torch.Tensor, transitions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert emissions.ndim == 3 and emissions.is_contiguous() and emissions.dtype == torch.float32
    batch, steps, states = emissions.shape
    assert transitions.shape == (states, states) and transitions.is_contiguous()
    path = torch.empty((batch, steps), dtype=torch.int64, device=emissions.device)
    score = torch.empty(batch, dtype=torch.float32, device=emissions.device)
    # Backpointers: one byte per (step, state) while indices fit in int8, else two.
    bp_torch, bp_tl = (torch.int8, tl.int8) if states <= 128 else (torch.int16, tl.int16)
    backptr = torch.empty((batch, steps, states), dtype=bp_torch, device=emissions.device)
    block_s = max(16, triton.next_power_of_2(states))
    # two [BLOCK_S, BLOCK_S] fp32 copies of the matrix at ~64 registers per thread
    num_warps = min(16, max(1, 2 * block_s * block_s // (32 * 64)))
    _viterbi_kernel[(batch,)](
        emissions, transitions, backptr, path, score, steps, states,
        BLOCK_S=block_s, BP_DTYPE=bp_tl, num_warps=num_warps,
    )  # fmt: skip
    return path, score
