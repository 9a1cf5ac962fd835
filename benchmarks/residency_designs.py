"""Experts beaten by their own lower rungs, swept at the rungs' tiles and warps: one task per call.

    python benchmarks/residency_designs.py TASK [--workloads W ...] [--designs SUBSTRING ...]          (GPU)
    TRITON_INTERPRET=1 python benchmarks/residency_designs.py TASK --check-interpret                    (CPU)

TASK is one of topk_rows, logcumsumexp, swiglu, stream_compaction. Prints one line per measurement as it goes, then
a table of latencies (triton.testing.do_bench, L2 flushed, output allocation included) and the elapsed time.

Why it exists: timed in alternation on an H200 (2026-12-03 18:55 UTC, docs/runs/2026-12-03-h200-evening/), these
experts were slower than a lower rung of their own ladder: topk_rows's L1 by 34-47% on all three workloads,
logcumsumexp's L1 by 34% / 52% on two, stream_compaction's L1 by 30% / 6% on two, swiglu's L1 by 4-6% on all four.
Compiled for sm_90 (docs/runs/2026-12-03-sm90-resources/inversions.txt), each expert takes a larger tile on more
warps than the rung and holds fewer warps per SM (topk_rows: the same 8 warps per SM, but its 16384-wide blocks
spill 808-928 bytes a thread and one persistent program per SM walks the rows). rmsnorm_residual had the same shape
of loss, and its sweep found one tile per program at the rung's residency faster (the expert since 7dd1f0a).

The candidates are each expert's own kernel with its module constants swapped for the length of a call (tile and
warps; for topk_rows also a program per row instead of one per SM), beside the rung that beat it, so one call says
whether the expert's design loses to its tile choice or to something the rung does differently.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from design_sweep import TaskFiles, sweep_main, with_attrs  # noqa: E402

# task -> {design name: module attributes swapped for the call}; the values are what the faster rung uses
SWAPS: dict[str, dict[str, dict[str, Any]]] = {
    "topk_rows": {
        "BLOCK_V 4096 w4 (the L1 rung's block)": {"BLOCK_V": 4096, "NUM_WARPS": 4},
        "BLOCK_V 8192 w4": {"BLOCK_V": 8192, "NUM_WARPS": 4},
        "BLOCK_V 8192 w8": {"BLOCK_V": 8192, "NUM_WARPS": 8},
        "a program per row (BLOCK_V 16384 w8)": {"_num_sms": lambda index: 1 << 30},
        "a program per row, BLOCK_V 4096 w4": {"_num_sms": lambda index: 1 << 30, "BLOCK_V": 4096, "NUM_WARPS": 4},
    },
    "logcumsumexp": {
        "CHUNK 1024 w4 (the L1 rung's)": {"CHUNK": 1024, "NUM_WARPS": 4},
        "CHUNK 2048 w4": {"CHUNK": 2048, "NUM_WARPS": 4},
        "CHUNK 2048 w8": {"CHUNK": 2048, "NUM_WARPS": 8},
        "CHUNK 4096 w4": {"CHUNK": 4096, "NUM_WARPS": 4},
    },
    "swiglu": {
        "1024 outputs w4 (the L1 rung's)": {"_TILE": 1024, "_NUM_WARPS": 4},
        "2048 outputs w4": {"_TILE": 2048, "_NUM_WARPS": 4},
        "4096 outputs w4": {"_TILE": 4096, "_NUM_WARPS": 4},
        "8192 outputs w4": {"_TILE": 8192, "_NUM_WARPS": 4},
    },
    "stream_compaction": {
        "TILE 1024 w4 (the L1 rung's)": {"_TILE": 1024, "_NUM_WARPS": 4},
        "TILE 2048 w4": {"_TILE": 2048, "_NUM_WARPS": 4},
        "TILE 4096 w4": {"_TILE": 4096, "_NUM_WARPS": 4},
        "TILE 4096 w8": {"_TILE": 4096, "_NUM_WARPS": 8},
    },
}


def candidates_for(task: str) -> Callable[[TaskFiles, list[str] | None], dict[str, Callable[..., Any]]]:
    def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
        for attrs in SWAPS[task].values():
            missing = [name for name in attrs if not hasattr(files.expert, name)]
            if missing:
                raise SystemExit(f"residency_designs.py: the {task} expert has no {', '.join(missing)} to swap")
        designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
        designs |= {name: with_attrs(files.expert, attrs) for name, attrs in SWAPS[task].items()}
        designs |= {f"{rung} rung": module.solution for rung, module in files.ladder_modules().items()
                    if rung != "plain"}  # fmt: skip
        return {name: fn for name, fn in designs.items() if not chosen or any(c in name for c in chosen)}

    return candidates


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in SWAPS:
        print(f"usage: residency_designs.py TASK [...], TASK one of {', '.join(SWAPS)}", file=sys.stderr)
        return 2
    task = sys.argv.pop(1)
    if "--compile-check" in sys.argv:
        print("residency_designs.py: no --compile-check (its candidates are the expert's kernel at other constants)",
              file=sys.stderr)  # fmt: skip
        return 2
    return sweep_main(task, Path(__file__), __doc__, candidates_for(task), ())


if __name__ == "__main__":
    sys.exit(main())
