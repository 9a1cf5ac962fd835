"""What the runtime guard adds to a solution's timed latency, for a solution that waits on the device.

    python benchmarks/guard_cost.py TASK [--solution FILE] [--workloads W ...]        (GPU)

The harness times each call of solution() inside the runtime guard (a TorchFunctionMode and a TorchDispatchMode in
Python, and Triton's launch path patched to count launches). A solution that never waits on the device is issued
ahead of it, so the guard's Python lands outside its samples. One that reads a count back (`.item()`, as
stream_compaction's output length requires) leaves the device idle while the host runs, and then the guard's
Python between its ops lands inside the samples. This prints, per GPU workload, the latency the harness's own
timing loop (timing.time_functions: L2 flushed, CUDA events, the device waiting while a batch is issued) reads for
the solution called plainly, then with Triton's launch path patched as the worker patches it, then called inside
the guard as well, as the worker calls it.
The audit hook, which the worker also installs, is not here: the worker's figure can only be higher.

Why it exists: on an H200 (2026-12-03) stream_compaction's harness latencies were 445-489 us above its kernel's
time (ncu) on all four workloads. What it found there (23:02-23:21 UTC, docs/runs/2026-12-03-h200-late/): the
guard was 36-49% of the expert's timed latency before its three zero-fills became one, and 28-55% after, in two runs
(dgc-gradient-sparsify 625-628 us plain against 863-1055 in the guard; nerf-occupied-samples 211-272 against
452-596). The patched launch path alone stayed within the run-to-run spread of plain. Turning torch-function handling
off in the suspended launch path (which skips the guard's Python for every tensor attribute Triton's launcher reads)
did not lower it beyond that spread, so the cost is in the guarded ops of the solution's own host code and their
sync, not in the launch. The reference is timed in the checker, unguarded.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.harness.checker import load_module  # noqa: E402
from workbench.tasks import load_task  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task")
    parser.add_argument("--solution", default=None, help="a solution file (default: the task's expert)")
    parser.add_argument("--workloads", nargs="+", default=None)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds of sampling per workload and mode")
    args = parser.parse_args()

    import torch

    from workbench.harness.solution_side import triton_patches
    from workbench.harness.solution_side.guard import SolutionGuard, resolve_callables
    from workbench.harness.timing import TimingOptions, flush_buffer, time_functions

    started = time.perf_counter()
    try:
        task = load_task(args.task)
    except Exception as exc:  # an unknown task or a broken task folder: one line, as every command says it
        print(f"guard_cost.py: {exc}", file=sys.stderr)
        return 2
    path = Path(args.solution) if args.solution else task.expert_path
    if path is None or not path.is_file():
        print(f"guard_cost.py: no solution file for {args.task}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("guard_cost.py: needs a CUDA GPU (it times through CUDA events, as the harness does)", file=sys.stderr)
        return 2
    solution = load_module("_guard_cost_solution", path).solution
    make_inputs = load_module("_guard_cost_inputs", task.file("inputs.py")).make_inputs
    device = torch.device("cuda")
    flush = flush_buffer(device)
    options = TimingOptions(budget_s=args.budget, target_rel_err=0.002)
    workloads = [w for w in task.workloads if not w.interpret and (not args.workloads or w.name in args.workloads)]
    sets = {w.name: [tuple(make_inputs(dict(w.params), w.seed + i, device)) for i in range(2)] for w in workloads}

    def median_us(fn: object, name: str) -> tuple[float, int]:
        timed = time_functions([fn], sets[name], flush, options)[0]  # type: ignore[list-item]
        return timed.latency.median * 1e3, timed.latency.n

    plain: dict[str, tuple[float, int]] = {}
    for name in sets:
        plain[name] = median_us(solution, name)
        print(f"{name} plain: {plain[name][0]:.1f} us ({plain[name][1]} samples)", flush=True)

    triton_patches.apply(interpret=False)
    patched: dict[str, float] = {}
    for name in sets:  # the launch path as the worker patches it, no guard yet
        patched[name] = median_us(solution, name)[0]
        print(f"{name} launch path patched: {patched[name]:.1f} us", flush=True)
    guard = SolutionGuard(resolve_callables(task.forbidden_calls), task.allowed_torch_ops, poison=False)

    def guarded(*inputs: object) -> object:
        guard.next_call()  # each call's own read budget, as the worker's timed batch gives it
        return solution(*inputs)

    print(f"\n{task.name}: {path.name} on {torch.cuda.get_device_name()}; median us (the harness's timing loop)")
    print("| workload | plain | launch path patched | in the guard | guard's share |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in sets:
        with guard:
            inside, samples = median_us(guarded, name)
        print(f"{name} guarded: {inside:.1f} us ({samples} samples)", file=sys.stderr, flush=True)
        share = (inside - plain[name][0]) / inside
        print(f"| {name} | {plain[name][0]:.1f} | {patched[name]:.1f} | {inside:.1f} | {share:.0%} |", flush=True)
    print(f"elapsed {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
