"""Experts beaten by their own lower rungs, swept at the rungs' tiles and warps: one task per call.

    python benchmarks/residency_designs.py TASK [--workloads W ...] [--designs SUBSTRING ...]          (GPU)
    TRITON_INTERPRET=1 python benchmarks/residency_designs.py TASK --check-interpret                    (CPU)

TASK is one of logcumsumexp, swiglu, sliding_window_max, histogram, segment_softmax, rope_qk_norm, stream_compaction,
knn_topk (topk_rows's expert is a new design since 9744c8d; benchmarks/topk_designs.py sweeps it). Prints one line per
measurement as it goes, then a table of latencies (triton.testing.do_bench, L2 flushed, output allocation included)
and the elapsed time.

Why it exists: timed in alternation on an H200 (2026-12-03 18:55 UTC, docs/runs/2026-12-03-h200-evening/), these
experts were slower than a lower rung of their own ladder: topk_rows's L1 by 34-47% on all three workloads,
logcumsumexp's L1 by 34% / 52% on two, stream_compaction's L1 by 30% / 6% on two, swiglu's L1 by 4-6% on all four.
Compiled for sm_90 (docs/runs/2026-12-03-sm90-resources/inversions.txt), each expert takes a larger tile on more
warps than the rung and holds fewer warps per SM (topk_rows: the same 8 warps per SM, but its 16384-wide blocks
spill 808-928 bytes a thread and one persistent program per SM walks the rows). rmsnorm_residual had the same shape
of loss, and its sweep found one tile per program at the rung's residency faster (the expert since 7dd1f0a).

The candidates are each expert's own kernel with its module constants swapped for the length of a call (tile and
warps), or with its source edited one difference at a time (EDITS), beside the rung that beat it, so one call says
whether the expert's design loses to its tile choice or to something the rung does differently.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import triton  # noqa: E402
from design_sweep import TaskFiles, expert_candidates, sweep_main  # noqa: E402


def _segment_config(budget: int, max_nodes: int, stream: int, hub_tiles: int) -> Callable[..., Any]:
    """segment_softmax's _config at another element budget: the short tile holds `budget` elements of at most
    `max_nodes` nodes, streamed tiles `stream` elements, a hub more than `hub_tiles` of them."""

    def config(num_edges: int, num_nodes: int, n_heads: int) -> tuple[int, int, int, int, int]:
        block_h = triton.next_power_of_2(n_heads)
        mean_degree = max(1, num_edges // max(1, num_nodes))
        maxd = max(4, min(triton.next_power_of_2(mean_degree), budget // 2 // block_h))
        nodes = max(1, min(max_nodes, budget // (maxd * block_h)))
        block_e = max(16, stream // block_h)
        return block_h, maxd, nodes, block_e, hub_tiles * block_e

    return config


HUB_NEVER = 1 << 20  # streamed tiles before a segment counts as a hub: more than any graph here has


def _node_per_program(hub_tiles: int = 8) -> Callable[..., Any]:
    """segment_softmax's _config for long typical segments: a node per program (the expert's _segment_per_node_kernel
    since 2026-12-04: no short tile, the first 1024-element tile kept in registers), streamed tiles of 1024 elements,
    a hub past `hub_tiles` of them (HUB_NEVER: no hub is split, every long segment is its owner's serial walk, as in
    L1)."""

    def config(num_edges: int, num_nodes: int, n_heads: int) -> tuple[int, int, int, int, int]:
        block_h = triton.next_power_of_2(n_heads)
        block_e = max(16, 1024 // block_h)
        return block_h, block_e, 1, block_e, hub_tiles * block_e

    return config


# task -> {design name: module attributes swapped for the call}; the values are what the faster rung uses
SWAPS: dict[str, dict[str, dict[str, Any]]] = {
    "logcumsumexp": {
        "CHUNK 1024 w4 (the L1 rung's)": {"CHUNK": 1024, "NUM_WARPS": 4},
        "CHUNK 2048 w4": {"CHUNK": 2048, "NUM_WARPS": 4},
        "CHUNK 2048 w8": {"CHUNK": 2048, "NUM_WARPS": 8},
        "CHUNK 4096 w4": {"CHUNK": 4096, "NUM_WARPS": 4},
    },
    "swiglu": {
        "BLOCK_F 1024 at every F": {"_block_f": lambda F: 1024},
        "BLOCK_F 512 at F 768": {"_block_f": lambda F: 1024 if F >= 4096 else 512},
        "1024 outputs w4 (the L1 rung's)": {"_TILE": 1024, "_NUM_WARPS": 4},
        "2048 outputs w4": {"_TILE": 2048, "_NUM_WARPS": 4},
        "4096 outputs w4": {"_TILE": 4096, "_NUM_WARPS": 4},
        "8192 outputs w4": {"_TILE": 8192, "_NUM_WARPS": 4},
    },
    "sliding_window_max": {
        "SPAN max(1024, w) w4 (the L1+L2 rung's)": {"_span": lambda w: max(1024, w), "_NUM_WARPS": 4},
        "SPAN max(2048, 2w) w4": {"_span": lambda w: max(2048, 2 * w), "_NUM_WARPS": 4},
        "SPAN max(4096, 4w) w4": {"_span": lambda w: max(4096, 4 * w), "_NUM_WARPS": 4},
        "SPAN max(4096, 8w) w4": {"_NUM_WARPS": 4},
        "SPAN max(2048, 2w) w8": {"_span": lambda w: max(2048, 2 * w), "_NUM_WARPS": 8},
    },
    "histogram": {
        "window BLOCK 4096 w4 (the L1 rung's)": {"_WINDOW_BLOCK": 4096, "_WINDOW_WARPS": 4},
        "window BLOCK 2048 w4": {"_WINDOW_BLOCK": 2048, "_WINDOW_WARPS": 4},
        "window BLOCK 4096 w8": {"_WINDOW_BLOCK": 4096, "_WINDOW_WARPS": 8},
        "resident BLOCK 4096 w4, 4 a SM (the L1+L2 rung's)": {
            "_RESIDENT_BLOCK_U8": 4096,
            "_RESIDENT_WARPS": 4,
            "_RESIDENT_PER_SM": 4,
        },
        "resident BLOCK 8192 w4, 4 a SM": {"_RESIDENT_BLOCK_U8": 8192, "_RESIDENT_WARPS": 4, "_RESIDENT_PER_SM": 4},
        "resident BLOCK 16384 w8, 4 a SM": {"_RESIDENT_PER_SM": 4},
    },
    "segment_softmax": {
        "2048-element tiles, 512-element streams, HUB 8 tiles": {"_config": _segment_config(2048, 16, 512, 8)},
        "2048-element tiles of at most 8 nodes, 512-element streams, HUB 8 tiles": {
            "_config": _segment_config(2048, 8, 512, 8)
        },
        # ogbn-products, where the L1+L2 rung (a hub past 8 of its 128-edge streams) was 2.2-2.3% faster in the
        # last two H200 evals: the night's sweep ran the hub past 2 / 4 / 8 streamed tiles at 3052 / 2825 / 2771 us
        "2048-element tiles, 512-element streams, HUB 16 tiles": {"_config": _segment_config(2048, 16, 512, 16)},
        # reddit-gat-1h, where the L1 rung (one program walks each whole segment, no hub split) was 7-10% faster in
        # four H200 evals: the night's sweep (2026-12-03) ran 424 / 402 / 395 us with the hub past 2 / 4 / 8 tiles
        # against the rung's 363, so the split itself was the candidate cost. It was not: on 2026-12-04 (03:48 UTC)
        # a hub past 32 tiles and no split at all ran 394.2 / 393.0 us against the rung's 367.1; the one-node program
        # inside the tiled kernel was (128 registers against 40), and the expert now has a per-node kernel. Only
        # this branch (mean degree x heads of at least 256) takes these; arxiv and products keep their own _config.
        # (The HUB 16 tiles design above is, since then, the expert's own tiled _config.)
        "a node a program, a hub past 32 tiles": {"_config": _node_per_program(32)},
        "a node a program, no hub split (the L1 rung's walk)": {"_config": _node_per_program(HUB_NEVER)},
    },
    "rope_qk_norm": {
        "4 warps at every tile (the L1+L2 rung's)": {"_num_warps": lambda tile: 4},
        "8 warps above 8192 elements": {"_num_warps": lambda tile: 4 if tile <= 8192 else 8},
    },
    # not an inversion: ncu (2026-12-03 23:36 UTC) has the slice kernel latency-bound on all three workloads, 92-97%
    # of the time at 164-168 registers and 12-14% occupancy on grids of 2 programs a SM; more, shorter key slices put
    # more programs on each SM at the price of longer lists to merge. On the H200 (2026-12-04 01:07 UTC, sift1m /
    # minilm / sift-fp16, us): as shipped 4386.6 / 3298.8 / 3534.8, 3 a SM 4941.8 / 4477.0 / 3931.6, 4 a SM 3948.8 /
    # 3968.5 / 3604.4, 6 a SM 4110.7 / 3703.4 / 3761.8: no count wins on all three, the expert is unchanged.
    "knn_topk": {
        "3 programs a SM": {"PROGRAMS_PER_SM": 3},
        "4 programs a SM": {"PROGRAMS_PER_SM": 4},
        "6 programs a SM, slices of at least 2 tiles": {"PROGRAMS_PER_SM": 6, "MIN_TILES_PER_SLICE": 2},
    },
    "stream_compaction": {
        "TILE 1024 w4 (the L1 rung's)": {"_TILE": 1024, "_NUM_WARPS": 4},
        "TILE 2048 w4": {"_TILE": 2048, "_NUM_WARPS": 4},
        "TILE 4096 w4": {"_TILE": 4096, "_NUM_WARPS": 4},
        "TILE 4096 w8": {"_TILE": 4096, "_NUM_WARPS": 8},
    },
}


# task -> {design name: (source text -> replacement) edits of the expert at the rung's tile}: what else the rung does
# differently, one change at a time
EDITS: dict[str, dict[str, dict[str, str]]] = {
    "segment_softmax": {
        # the L1+L2 rung's flat streamed tiles (offsets from the segment's base, masked by the element count) were
        # faster on all three workloads (2026-12-03 23:03 UTC) and became the expert's
        "start and end in int32": {"mask=mask_node, other=0).to(tl.int64)": "mask=mask_node, other=0)"},
        "no -inf guard on the short tile's max": {
            '    m = tl.where(m == float("-inf"), 0.0, m)  # empty': "    # empty"
        },
    },
    "swiglu": {
        # the former expert's hint, measured 3-4% slower on the long rows (2026-12-03)
        "with evict_first on the loads": {
            "other=0.0).to(tl.float32)": 'other=0.0, eviction_policy="evict_first").to(tl.float32)'
        },
        "int32 row offsets": {".to(tl.int64)": ""},
    },
}


def candidates_for(task: str) -> Callable[[TaskFiles, list[str] | None], dict[str, Callable[..., Any]]]:
    def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
        return expert_candidates(files, SWAPS[task], EDITS.get(task, {}), chosen)

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
