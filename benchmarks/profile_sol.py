"""Nsight Compute over the experts' workloads that are far from SOL: the evidence a "why it is under 40%" note rests
on. For each chosen workload the expert is profiled exactly as the agent's profile tool does it (confined, alone on
the GPU, only the solution's Triton kernels, `--clock-control none`), and the tool's summary is saved per workload
with one JSON of the figures a note quotes: per kernel its time, DRAM throughput (% of peak), compute throughput,
achieved occupancy, ncu's bound, and the registers and shared memory of a program.

    python benchmarks/profile_sol.py OUTDIR [--suite docs/runs/.../suite.json] [--under 0.4] [--per-task 1]
                                          [--tasks T ...] [--timeout 120]

Workloads come from a recorded suite run (the latest under docs/runs/ unless --suite): the expert's timed workloads
under --under of SOL, the lowest --per-task of each task (0: all). Needs torch, Triton and ncu (the GPU machine).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.session.profile_tool import run_profile  # noqa: E402
from workbench.suite import latest_run, load_run, workload_rows  # noqa: E402
from workbench.tasks import load_task, task_names  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def chosen(suite: Path, under: float, per_task: int, tasks: list[str] | None) -> list[tuple[str, str, float]]:
    """(task, workload, SOL fraction) of the expert's timed workloads under `under`, lowest first within a task."""
    run = load_run(suite)
    names = tasks or task_names()
    rows = [r for r in workload_rows(run, [load_task(n) for n in names]) if r.sol_fraction and r.sol_fraction < under]
    picked: list[tuple[str, str, float]] = []
    for name in names:
        mine = sorted((r for r in rows if r.task == name), key=lambda r: r.sol_fraction or 0.0)
        picked += [(r.task, r.workload, r.sol_fraction or 0.0) for r in (mine[:per_task] if per_task else mine)]
    return picked


def profile_one(task_name: str, workload_name: str, timeout_s: float) -> tuple[str, bool, float]:
    task = load_task(task_name)
    workload = next(w for w in task.workloads if w.name == workload_name)
    if task.expert_path is None:
        return f"{task_name} has no expert kernel", True, 0.0
    work = Path(tempfile.mkdtemp(prefix="profile-sol-"))
    try:
        shutil.copy(task.expert_path, work / "solution.py")
        started = time.perf_counter()
        text, failed = run_profile(task, work, workload, timeout_s, None)
        return text, failed, time.perf_counter() - started
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--suite", type=Path, default=None, help="a recorded suite.json (default: the latest)")
    parser.add_argument("--under", type=float, default=0.4, help="SOL fraction below which a workload is profiled")
    parser.add_argument("--per-task", type=int, default=1, help="the lowest N workloads of each task (0: all)")
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds for one profile")
    args = parser.parse_args(argv)
    suite = args.suite or latest_run(ROOT)
    if suite is None:
        print("error: no recorded suite run under docs/runs/", file=sys.stderr)
        return 2
    args.outdir.mkdir(parents=True, exist_ok=True)
    picked = chosen(suite, args.under, args.per_task, args.tasks)
    print(f"{len(picked)} workloads under {args.under:.0%} of SOL in {suite}", flush=True)
    record = []
    for task_name, workload_name, fraction in picked:
        text, failed, seconds = profile_one(task_name, workload_name, args.timeout)
        (args.outdir / f"{task_name}__{workload_name}.txt").write_text(text)
        record.append({"task": task_name, "workload": workload_name, "sol_fraction": fraction, "failed": failed,
                       "seconds": round(seconds, 1), "summary": text})  # fmt: skip
        (args.outdir / "profiles.json").write_text(json.dumps({"suite": str(suite), "profiles": record}, indent=1))
        head = text.strip().splitlines()[:1]
        print(f"{task_name}/{workload_name} ({fraction:.1%} of SOL, {seconds:.0f} s): "
              f"{'FAILED ' if failed else ''}{head[0] if head else ''}", flush=True)  # fmt: skip
        print(text, flush=True)
    return 1 if any(r["failed"] for r in record) else 0


if __name__ == "__main__":
    sys.exit(main())
