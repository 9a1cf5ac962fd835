"""Edit-distance designs side by side: anti-diagonal wavefront against row-by-row scans, at several warp counts and
state widths. Prints one line per measurement and a table of latencies (triton.testing.do_bench, L2 flushed, output
allocation included); the reference and the ladder rungs are timed alongside.

    python benchmarks/edit_distance_designs.py [--workloads W ...]
    TRITON_INTERPRET=1 python benchmarks/edit_distance_designs.py --check-interpret   (CPU: correct / wrong)

Why it exists: on an H200 the first expert of this task (an anti-diagonal wavefront with int16 state and warps
sized to the lane count) was slower than its own L1+L2 ladder rung (the same wavefront in int32 on 4 warps) on
all three workloads, and the plain rung (one DP row per step, a min-scan over the row, the row shift through a
global scratch row) beat both on the two shorter ones (asr 398 us against 644). A wavefront runs la + lb
dependent steps over BLOCK lanes; a row scan runs la steps, each a log2(BLOCK)-level scan. The designs:

- wavefront i16|i32 wW: the first expert's kernel (int16 state) or its L1+L2 rung's (int32), on W warps;
- rowscan wW: one row per step as in the plain rung, but the row stays in registers: its one-lane shift is a
  tl.gather (no scratch row, no barrier), and lane k holds column j = k + 1 (column 0, D[i][0] = i, is a scalar),
  so a pair of length L takes next_pow2(L) lanes, not next_pow2(L + 1). This is now the expert's kernel.

First H200 run (2026-11-29, docs/runs/2026-11-29-h200-night/): rowscan 1.8-3.9x faster than the wavefront
expert, at 1 warp for L = 256, 2 for 512, 4 for 1024; the expert and its ladder were rewritten to it (the ladder
names in that log are the wavefront rungs of the time).
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

BIG = tl.constexpr(1 << 14)  # value of not-yet-started cells (j < 0); never read by a real cell


@triton.jit
def _lev_wavefront_kernel(a_ptr, a_len_ptr, b_ptr, b_len_ptr, out_ptr, L, BLOCK: tl.constexpr, I16: tl.constexpr):
    """The first expert's wavefront (I16: int16 state, as it was) or its L1+L2 rung's (int32). Lane k holds row
    i = k + 1; on diagonal d it computes D[i][d - i]; row 0 and column 0 are computed."""
    state = tl.int16 if I16 else tl.int32
    p = tl.program_id(0).to(tl.int64)
    la = tl.load(a_len_ptr + p).to(tl.int32)
    lb = tl.load(b_len_ptr + p).to(tl.int32)
    k = tl.arange(0, BLOCK)
    i = k + 1
    a_tok = tl.load(a_ptr + p * L + k, mask=k < la, other=-1)
    src = tl.maximum(k - 1, 0)
    left = tl.full([BLOCK], BIG, state)  # diagonal d-1, same lane: D[i][j-1]
    up = tl.full([BLOCK], BIG, state)  # diagonal d-1, lane k-1: D[i-1][j]
    for d in range(1, la + lb + 1):
        j = d - i
        b_tok = tl.load(b_ptr + p * L + j - 1, mask=(j >= 1) & (j <= lb), other=-2)
        diag = up  # diagonal d-2, lane k-1: D[i-1][j-1]
        up = tl.where(k == 0, d - 1, tl.gather(left, src, axis=0)).to(state)
        cur = tl.minimum(tl.minimum(up, left) + 1, diag + (a_tok != b_tok).to(state))
        left = tl.where(j == 0, i, tl.where(j < 0, BIG, cur)).to(state)  # int16 + 1 promotes: cast back
    dist = tl.sum(tl.where(k == la - 1, left.to(tl.int32), 0), axis=0)
    tl.store(out_ptr + p, tl.where(la == 0, lb, dist))


def _launcher(kernel, warps: int, **meta):
    def solution(a, a_len, b, b_len):
        batch, length = a.shape
        dist = torch.empty(batch, dtype=torch.int32, device=a.device)
        block = max(16, triton.next_power_of_2(length))
        kernel[(batch,)](a, a_len, b, b_len, dist, length, BLOCK=block, num_warps=warps, **meta)
        return dist

    return solution


def candidates(files) -> dict:
    ladder = files.ladder_modules()
    found = {"expert": files.expert.solution} | {f"ladder {r}": m.solution for r, m in ladder.items()}
    for w in (1, 2, 4, 8):
        found[f"wavefront i16 w{w}"] = _launcher(_lev_wavefront_kernel, w, I16=True)
        found[f"wavefront i32 w{w}"] = _launcher(_lev_wavefront_kernel, w, I16=False)
    found |= {f"rowscan w{w}": _launcher(files.expert._lev_rows_kernel, w) for w in (1, 2, 4, 8)}
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+")
    parser.add_argument("--check-interpret", action="store_true", help="CPU correctness check (TRITON_INTERPRET=1)")
    args = parser.parse_args()
    files = load("edit_distance")
    if args.check_interpret:
        return check_interpret(files, candidates(files))
    sweep(files, {"reference": files.reference} | candidates(files), args.workloads, "edit_distance designs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
