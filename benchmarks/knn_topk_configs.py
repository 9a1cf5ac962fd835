"""kNN top-k expert configurations side by side: which main-kernel tiling (BLOCK_N, BLOCK_D, warps, stages) wins on
each workload. Prints one line per measurement and a table of latencies (triton.testing.do_bench, L2 flushed,
output allocation included); the reference and the ladder rungs are timed alongside.

    python benchmarks/knn_topk_configs.py [--workloads W ...]

Why it exists: on an H200 the expert (guidance/knn_topk/expert.py) was 0.59-0.94x as fast as its own L1+L2 ladder
rung (7492 vs 4397 us on sift1m-b1024), which differs from it only in the L3 choices: the rung runs 64-key tiles,
32-wide D chunks and 4 warps (and TF32 on fp32 inputs), the expert 128-key tiles, 64-128-wide D chunks, 8 warps and
fp16 operands. A wider key tile doubles the candidates per top-k insertion pass, which may cost more than the wider
MMA saves. Each design here is the expert's kernels with `_config` replaced, fp16 operands in all of them ("rule":
the expert's choice when swept: D chunks of 128 for fp16 inputs with 3 stages, 64 for fp32 with 2). First H200
run (2026-11-29): the rung's 64-key tiles on 4 warps won, and on fp32 inputs nothing cast to fp16 caught the
rung's TF32 kernel; the expert now takes both (docs/runs/2026-11-29-h200-night/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
from design_sweep import load, sweep, with_config  # noqa: E402

# (BLOCK_N, BLOCK_D or None for the expert's rule, num_warps, num_stages or None for the expert's rule)
CONFIGS = [
    (128, None, 4, None),
    (64, None, 8, None),
    (64, None, 4, None),
    (64, 32, 4, 3),
    (64, 64, 4, 3),
    (64, 32, 8, 3),
    (128, 32, 8, 3),
    (32, None, 4, None),
]


def fixed_config(block_n: int, block_d: int | None, warps: int, stages: int | None):
    """A `_config` rule with the main kernel's configuration fixed (None: the expert's rule when it was swept)."""

    def config(dtype, D):
        # the rule of the expert as it was swept (fp32 inputs cast to fp16: 64-wide D chunks, 2 stages)
        rule_d, rule_stages = (64, 2) if dtype == torch.float32 else (128, 3)
        return block_n, block_d or min(rule_d, D), warps, stages or rule_stages, True

    return config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+")
    args = parser.parse_args()
    files = load("knn_topk")
    candidates = {"reference": files.reference, "expert": files.expert.solution}
    ladder = files.ladder_modules()
    candidates |= {f"ladder {rung}": m.solution for rung, m in ladder.items() if rung != "plain"}  # plain: 50-400 ms
    for n, d, w, s in CONFIGS:
        name = f"BLOCK_N {n} BLOCK_D {d or 'rule'} w{w} s{s or 'rule'}"
        candidates[name] = with_config(files.expert, fixed_config(n, d, w, s))
    sweep(files, candidates, args.workloads, f"knn_topk configurations, triton {triton.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
