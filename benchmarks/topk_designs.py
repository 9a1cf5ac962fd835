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
# the two per-row kernels, one program of 4 warps a row, were 14-22% of the time at under 40% occupancy (ncu, 23:35
# UTC): the threshold fully sorts the row's group maxima where only the K_SEL-th largest is needed (a top-K_PAD is a
# shorter bitonic network), and the ordering step sorts all CAP slots where a row's candidates are typically a few
# dozen. Both are exact in the interpreter on the shapes below and on rows with 300, 700 and 1500 values tied at the
# top (the 256-slot path, the CAP path and the radix fallback). Timed on the H200 (2026-12-04 01:05 UTC, llama3 /
# qwen2 fp32 / gemma, us): as shipped 189.6 / 377.9 / 201.0, threshold 284.9 / 360.0 / 231.9, ordering 246.3 / 353.5
# / 219.6, both 236.4 / 340.5 / 222.7: 10% faster on fp32, 11-25% slower on bf16, so neither was adopted.
_THRESHOLD_BY_TOPK = {
    "def _threshold_kernel(gmax_ptr, thresh_ptr, n_groups, K_SEL: tl.constexpr, NG_PAD: tl.constexpr):": (
        "def _threshold_kernel(\n"
        "    gmax_ptr, thresh_ptr, n_groups, K_SEL: tl.constexpr, NG_PAD: tl.constexpr, K_TOP: tl.constexpr\n"
        "):"
    ),
    (
        "    ordered = tl.sort(gmax, descending=True)\n"
        "    tl.store(thresh_ptr + row, tl.max(tl.where(offs == K_SEL - 1, ordered, _MIN_I32), axis=0))"
    ): (
        "    best = tl.topk(gmax, K_TOP)  # descending; K_SEL <= K_TOP\n"
        "    j = tl.arange(0, K_TOP)\n"
        "    tl.store(thresh_ptr + row, tl.max(tl.where(j == K_SEL - 1, best, _MIN_I32), axis=0))"
    ),
    """K_SEL=k, NG_PAD=ng_pad, num_warps=4)""": """K_SEL=k, NG_PAD=ng_pad, K_TOP=min(k_pad, ng_pad), num_warps=4)""",
}
_ORDER_SMALL_FIRST = {
    """    n = tl.load(count_ptr + row)
    if n <= CAP:
        offs = tl.arange(0, CAP)""": """    n = tl.load(count_ptr + row)
    if n <= 256:  # the usual row: a few dozen candidates
        offs_small = tl.arange(0, 256)
        packed = tl.load(cand_ptr + row * CAP + offs_small, mask=offs_small < n, other=_MIN_I64)
        _store_winners(tl.topk(packed, K_PAD), val_ptr, idx_ptr, row * K_SEL, K_SEL, K_PAD)
    elif n <= CAP:
        offs = tl.arange(0, CAP)""",
}
EDITS: dict[str, dict[str, str]] = {
    "a run of slots per tile, ranked by a cumsum (the former filter)": _RUN_PER_TILE,
    "threshold by a top-K_PAD of the group maxima (no full sort)": _THRESHOLD_BY_TOPK,
    "ordering over 256 slots when the candidates fit": _ORDER_SMALL_FIRST,
    "both per-row changes": _THRESHOLD_BY_TOPK | _ORDER_SMALL_FIRST,
}
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
