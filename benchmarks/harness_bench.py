"""Measures the harness itself on a GPU and prints a table:

- repeat spread: the same expert evaluated N times; per workload, (max - min) / min of the medians;
- agreement: the harness's median against `triton.testing.do_bench` (L2 flushed, median) on the
  same solution and inputs;
- wall time of a full eval.

    python benchmarks/harness_bench.py [--tasks T ...] [--repeats 5] [--json OUT]
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
from workbench.tasks import load_task  # noqa: E402


def _module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def do_bench_ms(task_name: str) -> dict[str, float]:
    """triton.testing.do_bench's median per workload, on the workload's own seed."""
    import torch
    import triton.testing

    task = load_task(task_name)
    inputs = _module(f"{task_name}_inputs", task.file("inputs.py"))
    expert = _module(f"{task_name}_expert", task.expert_path)

    def one(params: dict[str, Any], seed: int) -> float:
        args = inputs.make_inputs(params, seed, torch.device("cuda"))
        return float(triton.testing.do_bench(lambda: expert.solution(*args), warmup=100, rep=500, return_mode="median"))

    return {w.name: one(dict(w.params), w.seed + 7919) for w in task.workloads}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--tasks", nargs="+", default=["rmsnorm_residual", "gram_syrk", "segmented_scan", "cross_entropy"]
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--repeat-tasks", nargs="+", default=["rmsnorm_residual"], help="tasks for the spread")
    parser.add_argument("--json", type=Path, help="write all measurements here")
    args = parser.parse_args()

    rows: list[dict[str, Any]] = []
    for name in args.tasks:
        task = load_task(name)
        repeats = args.repeats if name in args.repeat_tasks else 1
        runs, walls = [], []
        for _ in range(repeats):
            started = time.perf_counter()
            result = evaluate(task, task.expert_path, EvalOptions(mode="cuda"))
            walls.append(time.perf_counter() - started)
            runs.append(result)
        bench = do_bench_ms(name)
        for w in task.workloads:
            medians = [next(r for r in run.workloads if r.name == w.name) for run in runs]
            lat = [m.latency_ms.median for m in medians if m.latency_ms]
            if not lat:
                rows.append({"task": name, "workload": w.name, "error": medians[0].error})
                continue
            rows.append({
                "task": name, "workload": w.name, "median_ms": lat[0], "n": medians[0].latency_ms.n,
                "spread": (max(lat) - min(lat)) / min(lat) if len(lat) > 1 else None, "repeats": len(lat),
                "do_bench_ms": bench[w.name], "agreement": lat[0] / bench[w.name] - 1,
                "eval_wall_s": sum(walls) / len(walls),
            })  # fmt: skip
    header = f"{'task':18} {'workload':22} {'median us':>10} {'n':>5} {'spread':>8}"
    print(f"{header} {'do_bench us':>12} {'diff':>7} {'eval s':>7}")
    for r in rows:
        if "error" in r:
            print(f"{r['task']:18} {r['workload']:22} ERROR {r['error']}")
            continue
        spread = f"{r['spread']:.2%}" if r["spread"] is not None else "-"
        print(
            f"{r['task']:18} {r['workload']:22} {r['median_ms'] * 1e3:10.1f} {r['n']:5d} {spread:>8} "
            f"{r['do_bench_ms'] * 1e3:12.1f} {r['agreement']:+7.2%} {r['eval_wall_s']:7.1f}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
