"""How far the fp32 reference and a solution each are from the same computation in float64: the evidence
for setting a task's tolerance. Prints a table per output.

    python benchmarks/accuracy_fp64.py TASK [SOLUTION] [--workloads W ...] [--device cuda|cpu]

SOLUTION defaults to the task's expert. Without a GPU, set TRITON_INTERPRET=1 (interpret workloads only).
The float64 "truth" runs the task's reference on the same inputs cast to float64, so it only applies to
references that are written dtype-generically. A tolerance is sound when the reference's own error against
float64 fits inside it with margin: a correct solution may land on the other side of the truth.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from design_sweep import load  # noqa: E402

from workbench.harness.checker import load_module  # noqa: E402
from workbench.harness.solution_side import triton_patches  # noqa: E402
from workbench.tasks import Tolerance  # noqa: E402

STATS = ("max abs", "max rel", "beyond")


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _to_float64(value):
    import torch

    return value.double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value


def _errors(got, truth, atol: float, rtol: float) -> tuple[float, float, int]:
    """Largest absolute and relative error, and how many elements fall outside atol + rtol * |truth|."""
    diff = (got.double() - truth).abs()
    rel = diff / truth.abs().clamp_min(1e-30)
    beyond = int((diff > atol + rtol * truth.abs()).sum())
    return float(diff.max()), float(rel[truth.abs() > atol].max()) if (truth.abs() > atol).any() else 0.0, beyond


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task")
    parser.add_argument("solution", nargs="?", type=Path)
    parser.add_argument("--workloads", nargs="+")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()

    files = load(args.task)
    task, inputs, reference = files.task, files.inputs, files.reference
    device = torch.device(args.device)
    triton_patches.apply(interpret=device.type == "cpu")  # the harness's fixes for interpreter gaps
    solution = load_module("_accuracy_solution", args.solution).solution if args.solution else files.expert.solution
    workloads = [task.workload(name) for name in args.workloads] if args.workloads else task.workloads
    print(f"{task.name} on {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'CPU'}")
    columns = ["workload", "output", "tolerance", *(f"{who} {what}" for who in ("ref", "sol") for what in STATS)]
    print("| " + " | ".join(columns) + " |")
    print("| --- " * len(columns) + "|")
    for workload in workloads:
        if device.type == "cpu" and not workload.interpret:
            continue
        args_in = inputs.make_inputs(dict(workload.params), workload.seed, device)
        truth = _as_tuple(reference(*[_to_float64(a) for a in args_in]))
        expected = _as_tuple(reference(*args_in))
        got = _as_tuple(solution(*args_in))
        for name, t, e, g in zip(task.outputs, truth, expected, got, strict=True):
            tol = task.tolerance.get(str(e.dtype).removeprefix("torch."), Tolerance(0.0, 0.0))
            ref_err = _errors(e, t, tol.atol, tol.rtol)
            sol_err = _errors(g, t, tol.atol, tol.rtol)
            cells = [workload.name, name, f"atol {tol.atol:g} rtol {tol.rtol:g}"]
            cells += [f"{ref_err[0]:.3g}", f"{ref_err[1]:.3g}", str(ref_err[2])]
            cells += [f"{sol_err[0]:.3g}", f"{sol_err[1]:.3g}", str(sol_err[2])]
            print("| " + " | ".join(cells) + " |", flush=True)
        del args_in, truth, expected, got
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
