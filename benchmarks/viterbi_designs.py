"""Viterbi designs side by side: the expert's alternating-layout recurrence (trans and trans^T, both in registers)
against its L1+L2 rung's single-layout one (one tile, a layout conversion each step), each on several warp counts.
Prints one line per measurement and a table of latencies (triton.testing.do_bench, L2 flushed, output allocation
included); the reference is timed alongside.

    python benchmarks/viterbi_designs.py [--workloads W ...]
    TRITON_INTERPRET=1 python benchmarks/viterbi_designs.py --check-interpret   (CPU: correct / wrong)

Why it exists, and what it found: on the H200 (2026-12-03, docs/runs/2026-12-03-h200-ladders/) the expert was slower
than its own L1+L2 rung on two of three workloads: 4430.8 us against 929.0 on ontonotes-ner-crf (S = 37) and 7344.4
against 2637.5 on speech-hmm-128 (S = 128); on ptb-pos-long-docs (S = 48) 2432.0 against 2030.9. The expert holds two
[BLOCK_S, BLOCK_S] fp32 tiles where the rung holds one, at the same 4 warps for BLOCK_S = 64 (64 registers a thread
for the tiles alone, before the step's candidates): spilling is the first suspect, and the warp count the first knob.
The sweep's first H200 run (2026-12-03, docs/runs/2026-12-03-h200-peers/viterbi_designs.log): the single-layout
kernel on 2 warps was fastest on all three (663.8, 1309.2, 2356.9 us), the alternating one 2-6x slower on any warp
count at S = 37 and S = 128. The expert is now the single-layout kernel on 2 warps.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from design_sweep import check_interpret, load, sweep  # noqa: E402

WARPS = (2, 4, 8, 16)


# The expert until 2026-12-03 (L3.1 as it was): trans and trans^T both in registers, steps alternating between them
# so that no step needs a layout conversion; unrolled by two, an odd last step after the loop.
@triton.jit
def _alternating_kernel(
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
        # step t: cand[j, i] = score[i] + trans[i, j]; best over i (axis 1), ties to the lowest i
        best_r, arg_r = tl.max(score_c[None, :] + trans_t, axis=1, return_indices=True)
        tl.store(bp_row + t * S + rows, arg_r.to(BP_DTYPE), mask=row_ok)
        score_r = best_r + em_r
        # step t + 1: cand[i, j] = score[i] + trans[i, j]; best over i (axis 0)
        best_c, arg_c = tl.max(score_r[:, None] + trans, axis=0, return_indices=True)
        tl.store(bp_row + (t + 1) * S + cols, arg_c.to(BP_DTYPE), mask=col_ok)
        score_c = best_c + em_c

    if (T - 1) % 2 == 1:
        # an odd number of steps: the last one lands along rows
        em_r = tl.load(em_row + (T - 1) * S + rows, mask=row_ok, other=float("-inf"))
        best_r, arg_r = tl.max(score_c[None, :] + trans_t, axis=1, return_indices=True)
        tl.store(bp_row + (T - 1) * S + rows, arg_r.to(BP_DTYPE), mask=row_ok)
        best, last = tl.max(best_r + em_r, axis=0, return_indices=True)
    else:
        best, last = tl.max(score_c, axis=0, return_indices=True)
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


class _Alternating:
    _viterbi_kernel = _alternating_kernel


def launcher(module, warps: int):
    """`module`'s kernel (the expert's, a rung's or the alternating one: the same arguments) on `warps` warps."""

    def solution(emissions: torch.Tensor, transitions: torch.Tensor):
        batch, steps, states = emissions.shape
        path = torch.empty((batch, steps), dtype=torch.int64, device=emissions.device)
        score = torch.empty(batch, dtype=torch.float32, device=emissions.device)
        bp_torch, bp_tl = (torch.int8, tl.int8) if states <= 128 else (torch.int16, tl.int16)
        backptr = torch.empty((batch, steps, states), dtype=bp_torch, device=emissions.device)
        block_s = max(16, triton.next_power_of_2(states))
        module._viterbi_kernel[(batch,)](emissions, transitions, backptr, path, score, steps, states,
                                         BLOCK_S=block_s, BP_DTYPE=bp_tl, num_warps=warps)  # fmt: skip
        return path, score

    return solution


def candidates(files) -> dict:
    rung = files.ladder_modules()["l1_l2"]
    designs = {"expert (as shipped)": files.expert.solution}
    designs |= {f"alternating w{w}": launcher(_Alternating, w) for w in WARPS}
    designs |= {f"single-layout w{w}": launcher(rung, w) for w in WARPS}
    return designs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+", default=None)
    parser.add_argument("--check-interpret", action="store_true")
    args = parser.parse_args()
    files = load("viterbi_maxplus")
    if args.check_interpret:
        return check_interpret(files, candidates(files))
    sweep(files, {"reference": files.reference} | candidates(files), args.workloads, "viterbi_maxplus designs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
