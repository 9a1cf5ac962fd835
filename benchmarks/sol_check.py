"""Checks the SOL model on a GPU: measures the device's ceilings, evaluates every expert on every timed workload,
and prints per workload the latency, SOL on the measured ceilings, the binding resource, the fraction of SOL, and the
SOL on the datasheet's figures; an expert over 100% of SOL (or rejected as faster than it) is flagged, since SOL is
meant to be a floor no kernel goes under.

    python benchmarks/sol_check.py OUT.json [--tasks T ...] [--jobs N] [--budget S] [--deadline S] [--keep-cache]

Needs torch and Triton only. The ceilings are measured afresh (the device's cached entry is dropped first, unless
--keep-cache) through the harness's own cache, so the evals' SOL figures use the same ceilings the table prints. The
experts are evaluated through the harness (`workbench.harness.evaluate`, as `workbench eval` and
benchmarks/suite_gpu.py do), one seed, the reference not timed. A task that fails is recorded with its error and the
others go on; OUT.json is rewritten after every task, so a run cut short keeps what it finished; tasks not started by
--deadline seconds (default 420, inside an 8-minute call) are listed as not run. Exit status 1 when any expert is over
100% of SOL, failed, or was not run.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.jsonsafe import json_safe  # noqa: E402
from workbench.speed_of_light import DATASHEET_SOURCE, ceilings_text, datasheet  # noqa: E402
from workbench.tasks import load_task, task_names  # noqa: E402

OVER = 1.0  # a fraction of SOL above this is flagged


def fresh_ceilings(keep_cache: bool) -> dict[str, Any]:
    """The device's ceilings through the harness's cache, measured now unless --keep-cache."""
    import torch

    from workbench.harness import ceilings

    device = torch.device("cuda")
    path, key = ceilings.cache_path(), ceilings._device_key(device)
    if not keep_cache and path.exists():
        cached = json.loads(path.read_text())
        if isinstance(cached, dict) and cached.pop(key, None) is not None:
            path.write_text(json.dumps(cached, indent=2))
    started = time.perf_counter()
    found = ceilings.device_ceilings(device)
    found["seconds"] = round(time.perf_counter() - started, 1)
    return found


def rows_of(task_name: str, result: Any) -> list[dict[str, Any]]:
    """One row per workload of an expert's eval: what the table and the JSON show."""
    rows = []
    for w in result.workloads:
        latency = w.latency_ms.median if w.latency_ms else None
        flag = ""
        if w.failure == "timing-implausible":
            flag = "UNDER SOL (rejected)"
        elif w.sol_fraction is not None and w.sol_fraction > OVER:
            flag = "OVER 100%"
        elif not w.correct:
            flag = f"FAILED: {w.failure or 'error'}"
        rows.append({
            "task": task_name, "workload": w.name, "correct": w.correct, "latency_ms": latency,
            "sol_ms": w.sol_ms, "sol_binding": w.sol_binding, "sol_fraction": w.sol_fraction,
            "sol_by_resource_ms": w.sol_by_resource_ms, "sol_datasheet_ms": w.sol_datasheet_ms,
            "sol_datasheet_binding": w.sol_datasheet_binding, "error": w.error, "flag": flag,
        })  # fmt: skip
    return rows


def evaluate_expert(name: str, budget: float) -> dict[str, Any]:
    """One task's expert on its timed workloads; any failure is the task's record, never the run's end."""
    started = time.perf_counter()
    try:
        from workbench.harness import EvalOptions, evaluate

        task = load_task(name)
        if task.expert_path is None or not task.expert_path.exists():
            return {"task": name, "error": "no expert.py", "rows": []}
        timed = [w.name for w in task.workloads if not w.interpret]
        options = EvalOptions(mode="cuda", workloads=timed, seeds=1, timing={"budget_s": budget, "reference": False})
        result = evaluate(task, task.expert_path, options)
        return {"task": name, "error": result.error, "rows": rows_of(name, result),
                "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    except Exception as exc:
        return {"task": name, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
                "rows": [], "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip


def _us(ms: float | None) -> str:
    return f"{ms * 1e3:10.1f}" if ms is not None else f"{'-':>10}"


def table(records: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'task/workload':52} {'lat us':>10} {'SOL us':>10} {'bound':11} {'SOL%':>7} {'sheet us':>10} "
             f"{'sheet bound':11} flag"]  # fmt: skip
    for record in records:
        if not record["rows"]:
            lines.append(f"{record['task']:52} {'':>10} {'':>10} {'':11} {'':>7} {'':>10} {'':11} "
                         f"FAILED: {str(record.get('error'))[:160]}")  # fmt: skip
        for r in record["rows"]:
            frac = f"{r['sol_fraction']:7.1%}" if r["sol_fraction"] is not None else f"{'-':>7}"
            lines.append(f"{r['task'] + '/' + r['workload']:52} {_us(r['latency_ms'])} {_us(r['sol_ms'])} "
                         f"{r['sol_binding'] or '-':11} {frac} {_us(r['sol_datasheet_ms'])} "
                         f"{r['sol_datasheet_binding'] or '-':11} {r['flag']}")  # fmt: skip
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="where to write the JSON record")
    parser.add_argument("--tasks", nargs="+", help="only these tasks (default: every task)")
    parser.add_argument("--jobs", type=int, default=4, help="evals at once (the harness times one at a time)")
    parser.add_argument("--budget", type=float, default=0.3, help="timing seconds per workload")
    parser.add_argument("--deadline", type=float, default=420.0, help="start no task after this many seconds")
    parser.add_argument("--keep-cache", action="store_true", help="use the cached ceilings instead of measuring")
    args = parser.parse_args(argv)
    names = args.tasks or task_names()
    unknown = sorted(set(names) - set(task_names()))
    if unknown:
        print(f"sol_check: no task {unknown[0]!r}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    begun = time.perf_counter()
    doc: dict[str, Any] = {"measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                           "command": " ".join(["python benchmarks/sol_check.py", *(argv or sys.argv[1:])]),
                           "datasheet_source": DATASHEET_SOURCE, "tasks": [], "not_run": []}  # fmt: skip
    try:
        doc["ceilings"] = fresh_ceilings(args.keep_cache)
    except Exception as exc:  # without ceilings the evals still run; their SOL fields say what is missing
        doc["ceilings"] = {"error": f"{type(exc).__name__}: {exc}"}
    c = doc["ceilings"]
    doc["datasheet"] = datasheet(c.get("gpu"))
    print(f"ceilings: {ceilings_text(c)} ({c.get('source', c.get('error'))}, {c.get('seconds', '?')} s)", flush=True)
    for key, why in (c.get("unavailable") or {}).items():
        print(f"  not measured: {key}: {why}", flush=True)
    print(f"datasheet ({DATASHEET_SOURCE}): {doc['datasheet']}", flush=True)
    lock = threading.Lock()

    def one(name: str) -> None:
        if time.perf_counter() - begun > args.deadline:
            with lock:
                doc["not_run"].append(name)
            return
        record = evaluate_expert(name, args.budget)
        with lock:
            doc["tasks"].append(record)
            args.out.write_text(json.dumps(json_safe(doc), indent=1))
        print("\n".join(table([record])), flush=True)

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for future in [pool.submit(one, name) for name in names]:
            future.result()
    doc["tasks"].sort(key=lambda r: r["task"])
    doc["seconds"] = round(time.perf_counter() - begun, 1)
    args.out.write_text(json.dumps(json_safe(doc), indent=1))
    print("\n" + "\n".join(table(doc["tasks"])))
    flagged = [f"{r['task']}/{r['workload']}: {r['flag']}" for t in doc["tasks"] for r in t["rows"] if r["flag"]]
    flagged += [f"{t['task']}: {t['error']}" for t in doc["tasks"] if not t["rows"]]
    flagged += [f"{name}: not run (deadline)" for name in doc["not_run"]]
    print(f"\n{len(flagged)} flagged" + "".join(f"\n  {line}" for line in flagged))
    print(f"{doc['seconds']} s in all; JSON in {args.out}")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
