"""Measures the harness itself on a GPU and prints a table:

- repeat spread: the same expert evaluated N times; per workload, (max - min) / min of the medians;
- agreement: the harness's median against `triton.testing.do_bench` (L2 flushed, median) on the
  same solution and inputs;
- wall time of a full eval.

    python benchmarks/harness_bench.py [--tasks T ...] [--repeats 5] [--budget S] [--timer events] [--json OUT]

Rows are printed (and the JSON rewritten) as each task finishes, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.harness import EvalOptions, evaluate  # noqa: E402
from workbench.harness.spec import derive_seed  # noqa: E402
from workbench.tasks import load_task  # noqa: E402


def _module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def do_bench_ms(task_name: str, warmup: int = 100, rep: int = 500) -> dict[str, float]:
    """triton.testing.do_bench's median per workload (it zeroes a 256 MB buffer before every call to
    flush the L2). The default is do_bench's own: 100 ms of warm-up, then 500 ms of calls back to back."""
    import torch
    import triton.testing

    task = load_task(task_name)
    inputs = _module(f"{task_name}_inputs", task.file("inputs.py"))
    expert = _module(f"{task_name}_expert", task.expert_path)

    def one(params: dict[str, Any], seed: int) -> float:
        args = inputs.make_inputs(params, seed, torch.device("cuda"))
        ms = triton.testing.do_bench(lambda: expert.solution(*args), warmup=warmup, rep=rep, return_mode="median")
        return float(ms)

    # CI-sized workloads are not timed by the harness on the GPU (launch overhead), so not here either.
    return {
        w.name: one(dict(w.params), derive_seed(w.seed, w.name, "time", 0)) for w in task.workloads if not w.interpret
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--tasks", nargs="+", default=["rmsnorm_residual", "gram_syrk", "segmented_scan", "cross_entropy"]
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--repeat-tasks", nargs="+", default=["rmsnorm_residual"], help="tasks for the spread")
    parser.add_argument("--budget", type=float, default=3.0, help="timing seconds per function and workload")
    parser.add_argument("--timer", choices=["events"], default="events")
    parser.add_argument("--json", type=Path, help="write all measurements here")
    args = parser.parse_args()

    options = EvalOptions(mode="cuda", timing={"budget_s": args.budget, "timer": args.timer})
    header = f"{'task':18} {'workload':22} {'median us':>10} {'n':>5} {'spread':>8}"
    print(f"timer {args.timer}, budget {args.budget} s per function")
    print(f"{header} {'do_bench us':>12} {'diff':>7} {'burst us':>9} {'diff':>7} {'eval s':>7}")
    rows: list[dict[str, Any]] = []
    for name in args.tasks:
        task = load_task(name)
        repeats = args.repeats if name in args.repeat_tasks else 1
        runs, walls = [], []
        for _ in range(repeats):
            started = time.perf_counter()
            result = evaluate(task, task.expert_path, options)
            walls.append(time.perf_counter() - started)
            runs.append(result)
        bench = do_bench_ms(name)
        # A short burst as well: if a compute-bound kernel is slower over do_bench's sustained 600 ms than in
        # a 30 ms burst, the difference is the GPU's clock under sustained load, not the timer.
        burst = do_bench_ms(name, warmup=5, rep=25)
        task_rows = []
        for w in (w for w in task.workloads if not w.interpret):
            medians = [next(r for r in run.workloads if r.name == w.name) for run in runs]
            lat = [m.latency_ms.median for m in medians if m.latency_ms]
            if not lat:
                task_rows.append({"task": name, "workload": w.name, "error": medians[0].error or "not timed"})
                continue
            task_rows.append({
                "task": name, "workload": w.name, "median_ms": lat[0], "n": medians[0].latency_ms.n,
                "spread": (max(lat) - min(lat)) / min(lat) if len(lat) > 1 else None, "repeats": len(lat),
                "do_bench_ms": bench[w.name], "agreement": lat[0] / bench[w.name] - 1,
                "do_bench_burst_ms": burst[w.name], "agreement_burst": lat[0] / burst[w.name] - 1,
                "eval_wall_s": sum(walls) / len(walls), "timer": args.timer,
            })  # fmt: skip
        for r in task_rows:
            print_row(r)
        rows += task_rows
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
    return 0


def print_row(r: dict[str, Any]) -> None:
    if "error" in r:
        print(f"{r['task']:18} {r['workload']:22} {r['error']}", flush=True)
        return
    spread = f"{r['spread']:.2%}" if r["spread"] is not None else "-"
    print(
        f"{r['task']:18} {r['workload']:22} {r['median_ms'] * 1e3:10.1f} {r['n']:5d} {spread:>8} "
        f"{r['do_bench_ms'] * 1e3:12.1f} {r['agreement']:+7.2%} {r['do_bench_burst_ms'] * 1e3:9.1f} "
        f"{r['agreement_burst']:+7.2%} {r['eval_wall_s']:7.1f}",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
