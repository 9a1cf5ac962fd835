"""Viterbi designs side by side: the expert's alternating-layout recurrence (trans and trans^T, both in registers)
against its L1+L2 rung's single-layout one (one tile, a layout conversion each step), each on several warp counts.
Prints one line per measurement and a table of latencies (triton.testing.do_bench, L2 flushed, output allocation
included); the reference is timed alongside.

    python benchmarks/viterbi_designs.py [--workloads W ...]
    TRITON_INTERPRET=1 python benchmarks/viterbi_designs.py --check-interpret   (CPU: correct / wrong)

Why it exists: on the H200 (2026-12-03, docs/runs/2026-12-03-h200-ladders/) the expert was slower than its own
L1+L2 rung on two of three workloads: 4430.8 us against 929.0 on ontonotes-ner-crf (S = 37) and 7344.4 against
2637.5 on speech-hmm-128 (S = 128); on ptb-pos-long-docs (S = 48) 2432.0 against 2030.9. The expert holds two
[BLOCK_S, BLOCK_S] fp32 tiles where the rung holds one, at the same 4 warps for BLOCK_S = 64 (64 registers a thread
for the tiles alone, before the step's candidates): spilling is the first suspect, and the warp count the first knob.
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


def launcher(module, warps: int):
    """`module`'s kernel (the expert's or a rung's: the same arguments) launched on `warps` warps."""

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
    designs |= {f"alternating w{w}": launcher(files.expert, w) for w in WARPS}
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
