"""LayerNorm-backward expert configurations side by side: which (rows per tile, warps, programs per SM) wins at
each hidden size. Prints one line per measurement and a table of latencies (triton.testing.do_bench, L2 flushed,
output allocation included); the reference and the ladder rungs are timed alongside.

    python benchmarks/layernorm_backward_configs.py [--workloads W ...]

Why it exists: on an H200 the expert (guidance/layernorm_backward/expert.py) took 685 us on opt-1.3b-train
(32768 rows of 2048), against 192 us for its own L1+L2 ladder rung, which differs in tiling: the expert packs two
rows of 2048 into a [2, 2048] tile on 16 warps, the rung walks one row at a time on 8 warps. On the wide rows
(6144, 8192) the expert beat the rung by 1.2x. Each design here is the expert's kernels with `_config` replaced.
First H200 run (2026-11-29, docs/runs/2026-11-29-h200-night/sweep-4-layernorm-backward.txt): 8 warps with two
programs per SM won at every width (135 us at 2048 with 2-row tiles, 202 and 236 us at 6144 and 8192); 16 warps
on [2, 2048] tiles took 680. The expert now takes that rule.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import triton  # noqa: E402
from design_sweep import load, sweep, with_config  # noqa: E402

CONFIGS = [(1, 4, 4), (1, 8, 2), (1, 8, 4), (1, 16, 1), (1, 16, 2), (2, 8, 2), (2, 16, 2), (4, 8, 2), (4, 16, 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+")
    args = parser.parse_args()
    files = load("layernorm_backward")
    candidates = {"reference": files.reference, "expert": files.expert.solution}
    candidates |= {f"ladder {rung}": m.solution for rung, m in files.ladder_modules().items()}
    for rows, warps, per_sm in CONFIGS:
        config = lambda n_cols, r=rows, w=warps, p=per_sm: (triton.next_power_of_2(n_cols), r, w, p)  # noqa: E731
        candidates[f"rows {rows} w{warps} x{per_sm}/SM"] = with_config(files.expert, config)
    sweep(files, candidates, args.workloads, f"layernorm_backward configurations, triton {triton.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
