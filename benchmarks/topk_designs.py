"""topk_rows: the expert's filter design at other tiles, groups and capacities, beside its rungs.

    python benchmarks/topk_designs.py [--workloads W ...] [--designs SUBSTRING ...]                       (GPU)
    TRITON_INTERPRET=1 python benchmarks/topk_designs.py --check-interpret                               (CPU)

Why it exists: on an H200 (2026-12-03) the former expert, a radix select of every row (a tl.histogram update per
element per byte pass), read 2-3% of SOL, and its own L1 rung was 34-47% faster; no block, warp count or grid
closed that (residency_designs.py). The filter design does a few integer operations per element instead: group
maxima bound the k-th largest from below, one pass keeps what reaches that bound, and only the survivors are
sorted. Measured as a candidate here (CHUNK 2048 beside 4096 and 8192), it became the expert (2026-12-03 21:30);
its filtering pass then took a slot per survivor instead of a run per tile ranked by a cumsum (2026-12-03 23:10).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from design_sweep import TaskFiles, expert_candidates, sweep_main  # noqa: E402

TASK = "topk_rows"
VARIANTS: dict[str, dict[str, Any]] = {
    "CHUNK 4096 w4": {"CHUNK": 4096},
    "CHUNK 1024 w4": {"CHUNK": 1024},
    "CHUNK 2048 w2": {"NUM_WARPS": 2},
    "groups of 128": {"GROUP": 128},
    "groups of 512": {"GROUP": 512},
    "CAP 64 (rows with more than 64 candidates take the radix select)": {"CAP": 64},
}
# the filtering pass's former slots, beside the expert's: one atomic per tile reserving a run, its survivors ranked in
# it by a cumsum over the tile. ncu (2026-12-03, call 4) called that kernel compute-bound at 115 registers; a slot per
# survivor (55-56 registers) ran 152 / 379 / 216 us against 212 / 510 / 241 (23:00 UTC) and became the expert's
_RUN_PER_TILE = {
    """    if tl.max(keep.to(tl.int32), axis=0) > 0:
""": """    n_keep = tl.sum(keep.to(tl.int32), axis=0)
    if n_keep > 0:
""",
    """        slot = tl.atomic_add(count_ptr + row + tl.zeros_like(cols), 1, mask=keep, sem="relaxed")
""": """        base = tl.atomic_add(count_ptr + row, n_keep, sem="relaxed")
        slot = base + tl.cumsum(keep.to(tl.int32), axis=0) - 1
""",
}
EDITS: dict[str, dict[str, str]] = {"a run of slots per tile, ranked by a cumsum (the former filter)": _RUN_PER_TILE}
# beyond the task's interpret workload: longer rows (more groups than k at the shipped group size), fp32 and bf16
SHAPES = [
    ("rows-40k-bf16-k64", {"B": 3, "V": 40000, "k": 64, "dtype": "bfloat16"}, 71),
    ("rows-33k-fp32-k50", {"B": 2, "V": 33001, "k": 50, "dtype": "float32"}, 72),
    ("k1-fp32", {"B": 2, "V": 3000, "k": 1, "dtype": "float32"}, 73),
]


def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
    return expert_candidates(files, VARIANTS, EDITS, chosen)


if __name__ == "__main__":
    sys.exit(sweep_main(TASK, Path(__file__), __doc__, candidates, SHAPES))
