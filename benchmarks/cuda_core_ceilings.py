"""The CUDA-core ceilings (FP32, INT32, SFU) against launch shape and chain length, beside what the harness reports.

    python benchmarks/cuda_core_ceilings.py [--reps N]        (GPU)

Why it exists: on the H200 (2026-12-04), ncu put the board's FP32 peak at 66.4-66.9 TFLOP/s (the datasheet: 67) while
the harness's `microbench.fp32_tflops` measured 27.5-36.8 over six runs, although its kernel's loop compiles for sm_90
to 64 independent FFMAs, a counter and a branch (`cuobjdump -sass`). A ceiling below the unit's peak puts SOL above
what a kernel can reach, and three workloads are FP32-bound in the model (docs/runs/2026-12-04-h200/README.md).

This times the harness's own kernels (microbench's FMA, INT32 and exp2 chains) at 256 loop iterations (what
microbench runs: about 33 us a launch at the FP32 peak) and at 2048, at 4, 8 and 16 programs a SM and on 4 and 8
warps, and takes the difference of the long and the short chain, in which the launch and any clock ramp-up cancel.
It prints the SM clock and power nvidia-smi reports before and after, then microbench's own figures. The highest
rate a resource reaches is the candidate for its ceiling: where it is above microbench's, microbench should measure
it that way.

What it found (H200, 2026-12-04 03:48 UTC, `python3 benchmarks/cuda_core_ceilings.py`): one 256-step launch at 4
programs a SM, microbench's form then, read 29.7 TFLOP/s FP32, 24.5 Tops/s INT32 and 3.35 Tops/s exp2; the 2048 - 256
difference reached 61.0 (8 programs a SM, 4 warps), 38.8 (16, 4, multiply-add + xor-add) and 3.78. The short launch
was mostly launch, ramp-up and tail. microbench now measures each CUDA-core ceiling as that difference at 8 and 16
programs a SM on 4 warps and keeps the better, and a cached figure of the older form is measured again.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.harness import microbench as mb  # noqa: E402

SHORT, LONG = mb.ITERS_SHORT, mb.ITERS_LONG  # loop iterations of the short and the long chain, as microbench's
difference_rate = mb.chain_difference_rate  # the rate of the steps between them, as microbench takes it
PROGRAMS_PER_SM = (4, 8, 16)
WARPS = (4, 8)


def rate(elements: int, ops_per_iteration: int, iterations: int, ms: float) -> float:
    """Operations per second, in units of 1e12, of `elements` lanes each doing `iterations` loop steps."""
    return elements * ops_per_iteration * iterations / (ms * 1e-3) / 1e12


def clocks() -> str:
    """The SM clock, its maximum and the board's power, as nvidia-smi reports them now ('' without nvidia-smi)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ""
    query = "--query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu"
    done = subprocess.run([smi, query, "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


def kernels(torch: Any, mb: Any) -> list[tuple[str, str, Any, int, Callable[..., Any]]]:
    """(resource, form, output dtype, operations a lane per iteration, launch(out, programs, iterations, warps)),
    each through the launcher the harness's own ceiling uses."""
    chains = mb.CHAINS

    def int_mad(out: Any, programs: int, iters: int, warps: int) -> Any:
        return mb.launch_int(out, programs, iters, False, warps)

    def int_mixed(out: Any, programs: int, iters: int, warps: int) -> Any:
        return mb.launch_int(out, programs, iters, True, warps)

    def exp2(out: Any, programs: int, iters: int, warps: int) -> Any:
        return mb.launch_exp2(out, programs, iters, False, warps)

    def ex2_asm(out: Any, programs: int, iters: int, warps: int) -> Any:
        return mb.launch_exp2(out, programs, iters, True, warps)

    return [
        ("fp32 TFLOP/s", "FMA chains", torch.float32, 2 * chains, mb.launch_fma),
        ("int32 Tops/s", "multiply-add chains", torch.int32, 2 * chains, int_mad),
        ("int32 Tops/s", "multiply-add + xor-add", torch.int32, 2 * chains, int_mixed),
        ("SFU Tops/s", "tl.exp2", torch.float32, chains, exp2),
        ("SFU Tops/s", "ex2.approx", torch.float32, chains, ex2_asm),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5, help="timed launches per point (the median is kept)")
    args = parser.parse_args()
    if args.reps < 1:
        print("cuda_core_ceilings.py: --reps must be at least 1", file=sys.stderr)
        return 2
    import torch

    if not torch.cuda.is_available():
        print("cuda_core_ceilings.py: needs a CUDA GPU (none visible)", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    print(f"{torch.cuda.get_device_name(device)}, {sms} SMs; clocks before: {clocks()}")
    print(f"| resource | form | programs a SM | warps | {SHORT} iterations | {LONG} iterations | {LONG} - {SHORT} |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    best: dict[str, float] = {}
    for resource, form, dtype, ops, launch in kernels(torch, mb):
        for per_sm in PROGRAMS_PER_SM:
            grid = sms * per_sm
            elements = grid * mb.BLOCK
            out = torch.empty(elements, dtype=dtype, device=device)
            for warps in WARPS:

                def timed(iters: int, grid: int = grid, warps: int = warps, out: Any = out, go: Any = launch) -> float:
                    return mb.median_ms(lambda: go(out, grid, iters, warps), args.reps)

                ms_short, ms_long = timed(SHORT), timed(LONG)
                figures = [rate(elements, ops, SHORT, ms_short), rate(elements, ops, LONG, ms_long)]
                diff = difference_rate(elements, ops, ms_short, ms_long)
                best[resource] = max([best.get(resource, 0.0), *figures, diff or 0.0])
                cells = [f"{f:.2f}" for f in figures] + ["-" if diff is None else f"{diff:.2f}"]
                print(f"| {resource} | {form} | {per_sm} | {warps} | " + " | ".join(cells) + " |", flush=True)
    print(f"clocks after: {clocks()}")
    reported = {"fp32 TFLOP/s": mb.fp32_tflops, "int32 Tops/s": mb.int32_tops, "SFU Tops/s": mb.sfu_tops}
    for resource, measure in reported.items():
        print(f"{resource}: microbench {measure(device):.2f}, the best above {best.get(resource, 0.0):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
