"""Wall time of an eval, by phase: full and quick, cold (a new checker and worker) and warm (a session's next eval).

    python benchmarks/eval_speed.py [--mode cuda|interpret] [--tasks T ...] [--repeats N] [--gap S]
                                    [--kinds full quick submit] [--json OUT]

"full" is `workbench eval TASK expert` with default options (3 seeds, 1 s of timing per function and workload);
"submit" is what `submit` runs (3 seeds, 3 s of timing, the hidden workloads too); "quick" is a session's `evaluate`
(one seed, short timing, the visible workloads). Cold: the first eval after every checker is stopped; warm: the
evals after it in the same process, each `--gap` seconds after the one before (a session's evals are a model's turn
apart, in which the checker starts the next worker; with --gap 0 an eval waits for that start, shown as "worker
start"). Prints one row per eval and a summary.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.harness import (  # noqa: E402
    EvalOptions,
    checker_pool,  # noqa: E402
    evaluate,
)
from workbench.harness.runner import QUICK_TIMING, detect_mode
from workbench.harness.spec import EVAL_BUDGET_S  # noqa: E402
from workbench.tasks import load_task  # noqa: E402

PHASES = ("worker start", "load", "correctness", "timing")


def options(kind: str, mode: str) -> EvalOptions:
    if kind == "quick":
        return EvalOptions(mode=mode, seeds=1, timing=dict(QUICK_TIMING))
    if kind == "submit":
        return EvalOptions(mode=mode, hidden=True)
    return EvalOptions(mode=mode, timing={"budget_s": EVAL_BUDGET_S})


def one(task_name: str, kind: str, mode: str) -> dict[str, Any]:
    task = load_task(task_name)
    assert task.expert_path is not None
    started = time.perf_counter()
    result = evaluate(task, task.expert_path, options(kind, mode))
    wall = time.perf_counter() - started
    return {"task": task_name, "kind": kind, "wall_s": wall, "correct": result.correct, "phases_s": result.phases_s,
            "workloads": len(result.workloads), "error": result.error}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("cuda", "interpret"), default=None)
    parser.add_argument("--tasks", nargs="+", default=["rmsnorm_residual", "gram_syrk", "cross_entropy"])
    parser.add_argument("--repeats", type=int, default=2, help="warm evals of each kind after the cold one")
    parser.add_argument("--gap", type=float, default=10.0, help="seconds between warm evals (the agent's turn)")
    parser.add_argument("--kinds", nargs="+", choices=("full", "quick", "submit"), default=["full", "quick", "submit"],
                        help="the warm evals to run (a cold full eval always comes first)")  # fmt: skip
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    mode = args.mode or detect_mode()
    rows = []
    header = f"{'task':18} {'kind':7} {'state':5} {'wall s':>7} " + " ".join(f"{p[:11]:>11}" for p in PHASES)
    print(f"mode {mode}, {args.gap:g} s between warm evals\n{header}")
    for name in args.tasks:
        checker_pool._close_all()  # cold: no checker, no spare worker
        plan = [("full", "cold")] + [(k, "warm") for k in args.kinds for _ in range(args.repeats)]
        for kind, state in plan:
            if state == "warm":
                time.sleep(args.gap)
            row = {**one(name, kind, mode), "state": state, "gap_s": args.gap if state == "warm" else None}
            rows.append(row)
            phases = " ".join(f"{row['phases_s'].get(p, 0.0):>11.2f}" for p in PHASES)
            flag = "" if row["correct"] else f"  NOT CORRECT: {row['error']}"
            print(f"{name:18} {kind:7} {state:5} {row['wall_s']:>7.1f} {phases}{flag}", flush=True)
            parts = {p.split(": ", 1)[1]: v for p, v in row["phases_s"].items() if p.startswith("correctness: ")}
            if parts:
                print(" " * 20 + "correctness by part (s): " + ", ".join(f"{p} {v:.2f}" for p, v in parts.items()))
    print("\nsummary (median wall s)")
    for kind, state in (("full", "cold"), ("full", "warm"), ("quick", "warm"), ("submit", "warm")):
        for name in args.tasks:
            walls = [r["wall_s"] for r in rows if (r["task"], r["kind"], r["state"]) == (name, kind, state)]
            if walls:
                print(f"  {name:18} {kind:7} {state:5} {statistics.median(walls):7.1f}")
    if args.json:
        args.json.write_text(json.dumps({"mode": mode, "gap_s": args.gap, "rows": rows}, indent=2))
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
