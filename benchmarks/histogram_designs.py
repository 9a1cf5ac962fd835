"""Histogram designs side by side on the histogram task's workloads: which way of counting wins where.
Prints a table of latencies (triton.testing.do_bench, L2 flushed, output allocation included).

    python benchmarks/histogram_designs.py [--workloads W ...]

Why it exists: Triton's tl.histogram does not use shared-memory atomics. It builds each warp's counts
from one ballot per bit of the bin index, and each thread then owns bins/32 bins: its cost per element
grows with the number of bins (~ bins/32 * (log2(bins) + 2) integer operations). So "privatise the
whole alphabet on chip" is cheap for 64 bins and expensive for 4096. The designs measured here:

- atomics: one relaxed global atomic per element (no privatisation);
- fixed W: tl.histogram over bins [0, W) (the hot head of a Zipf vocabulary), atomics for the rest;
- centred W: tl.histogram over a window of W bins around each block's mean (a smooth image region
  puts most of its values near its mean), atomics for the rest;
- +dedup C: before the atomics, equal values within each group of C neighbours are merged into one
  atomic that adds their count (C x C compares in registers).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from design_sweep import load, sweep  # noqa: E402


@triton.jit
def _hist_design_kernel(
    x_ptr, counts_ptr, n, bins, BLOCK: tl.constexpr, W: tl.constexpr, CENTRED: tl.constexpr, DEDUP: tl.constexpr
):
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK // DEDUP)
    cols = tl.arange(0, DEDUP)
    offs = pid * BLOCK + rows[:, None] * DEDUP + cols[None, :]
    in_bounds = offs < n
    x = tl.load(x_ptr + offs, mask=in_bounds, other=0).to(tl.int32)
    to_global = in_bounds
    if W > 0:
        lo = 0
        if CENTRED:
            count = tl.maximum(tl.sum(tl.sum(in_bounds.to(tl.int32), axis=1), axis=0), 1)
            mean = tl.sum(tl.sum(x, axis=1), axis=0) // count
            lo = tl.minimum(tl.maximum(mean - W // 2, 0), tl.maximum(bins - W, 0))
        rel = x - lo
        in_window = in_bounds & (rel >= 0) & (rel < W)
        flat_rel = tl.reshape(tl.where(in_window, rel, 0), [BLOCK])
        sub = tl.histogram(flat_rel, W, mask=tl.reshape(in_window, [BLOCK]))
        bin_ids = lo + tl.arange(0, W)
        tl.atomic_add(counts_ptr + bin_ids, sub.to(tl.int64), mask=(sub > 0) & (bin_ids < bins), sem="relaxed")
        to_global = in_bounds & ~in_window
    if DEDUP > 1:
        # one atomic per distinct value of each row of DEDUP neighbours, adding how often it occurs there
        same = (x[:, :, None] == x[:, None, :]) & to_global[:, None, :]
        mult = tl.sum(same.to(tl.int32), axis=2)
        earlier = tl.sum((same & (cols[None, None, :] < cols[None, :, None])).to(tl.int32), axis=2)
        tl.atomic_add(counts_ptr + x, mult.to(tl.int64), mask=to_global & (earlier == 0), sem="relaxed")
    else:
        tl.atomic_add(counts_ptr + x, 1, mask=to_global, sem="relaxed")


def design(block: int, window: int, centred: bool, dedup: int):
    def run(x, bins):
        counts = torch.zeros(bins, dtype=torch.int64, device=x.device)
        grid = (triton.cdiv(x.numel(), block),)
        _hist_design_kernel[grid](x, counts, x.numel(), bins, BLOCK=block, W=window, CENTRED=centred, DEDUP=dedup,
                                  num_warps=8)  # fmt: skip
        return counts

    return run


DESIGNS = {
    "atomics": design(4096, 0, False, 1),
    "atomics+dedup16": design(1024, 0, False, 16),
    "fixed 64": design(4096, 64, False, 1),
    "fixed 256": design(4096, 256, False, 1),
    "fixed 256+dedup16": design(1024, 256, False, 16),
    "centred 64": design(2048, 64, True, 1),
    "centred 128": design(2048, 128, True, 1),
    "centred 256": design(2048, 256, True, 1),
    "centred 128+dedup16": design(1024, 128, True, 16),
    "centred 256 b4096": design(4096, 256, True, 1),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+")
    args = parser.parse_args()
    files = load("histogram")
    candidates = {"torch.bincount (reference)": files.reference, "expert": files.expert.solution}
    candidates |= {f"ladder {rung}": m.solution for rung, m in files.ladder_modules().items()} | DESIGNS
    sweep(files, candidates, args.workloads, f"histogram designs, triton {triton.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
