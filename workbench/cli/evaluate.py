"""`workbench eval TASK SOLUTION`: one eval through the harness, as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from workbench.harness.spec import EVAL_BUDGET_S
from workbench.jsonsafe import json_safe
from workbench.tasks import load_task


def add_parser(sub: Any) -> None:
    ev = sub.add_parser("eval", help="evaluate a solution on a task")
    ev.add_argument("task", help="task name (under tasks/) or task folder")
    ev.add_argument("solution", help="solution file, or 'expert' for the task's expert kernel")
    ev.add_argument("--workload", action="append", help="only this workload (repeatable)")
    ev.add_argument("--mode", choices=("cuda", "interpret"), help="default: cuda when a GPU is visible")
    ev.add_argument("--json", action="store_true", help="print the result as JSON")
    ev.add_argument("--seeds", type=int, default=3, help="correctness seeds per workload (default 3)")
    ev.add_argument("--timeout", type=float, default=300.0, help="seconds per workload, compile included")
    ev.add_argument("--timer", choices=("events",), default="events", help="CUDA events (checked against a wall clock)")
    ev.add_argument("--budget", type=float, default=EVAL_BUDGET_S, help="timing seconds per function and workload")
    ev.add_argument("--seed", type=int, help="draw the inputs of an earlier result again (its `seed`); default: fresh")
    ev.add_argument("--hidden", action="store_true", help="also check the task's hidden workloads, as submit does")
    beside_help = ("also evaluate this solution ('expert', a ladder rung: plain, l1, l1_l2, or a file) in the same "
                   "eval, timed in alternation with SOLUTION (repeatable); the exit status is SOLUTION's")  # fmt: skip
    ev.add_argument("--beside", action="append", default=[], metavar="OTHER", help=beside_help)


def solution_path(task: Any, name: str) -> Path:
    """'expert', a ladder rung's name, or a file."""
    if name == "expert":
        if task.expert_path is None or not task.expert_path.exists():
            raise UsageError(f"task {task.name} has no expert kernel (guidance/{task.name}/expert.py)")
        return Path(task.expert_path)
    rungs = dict(task.ladder)
    if name in rungs and not Path(name).is_file():
        return Path(rungs[name])
    solution = Path(name)
    if not solution.is_file():
        raise UsageError(f"no solution file {solution}")
    return solution


def eval_command(args: argparse.Namespace) -> int:
    from workbench.harness import EvalOptions, evaluate
    from workbench.harness.runner import check_mode, detect_mode, select_workloads
    from workbench.harness.sandbox import unconfined_warning

    task = load_task(args.task)
    solution = solution_path(task, args.solution)
    beside = [solution_path(task, name) for name in args.beside]
    mode = args.mode or detect_mode()
    check_mode(mode)  # these raise EvalUsageError on bad input: one line, exit status 2 (cli/errors.py)
    chosen = select_workloads(task, mode, args.workload, args.hidden)
    timing = {"timer": args.timer, "budget_s": args.budget}
    options = EvalOptions(mode=mode, workloads=args.workload, seeds=args.seeds, timeout_s=args.timeout, timing=timing,
                          seed=args.seed, hidden=args.hidden)  # fmt: skip
    warning = unconfined_warning()
    if warning:
        print(f"workbench: {warning}", file=sys.stderr)
    if not args.json:
        names = ", ".join(w.name for w in chosen)
        print(f"evaluating {solution} on {task.name} ({mode}: {names}) ...", file=sys.stderr)
    if beside:
        return _together(task, [solution, *beside], options, args.json)
    result = evaluate(task, solution, options)
    if args.json:
        print(json.dumps(json_safe(result.to_dict()), indent=2))
    else:
        from workbench.report_text import format_eval

        print(format_eval(result))
    return EXIT_OK if result.correct else EXIT_FAILED


def _together(task: Any, solutions: list[Path], options: Any, as_json: bool) -> int:
    """Several solutions in one eval: each one's result, then their latencies side by side."""
    from workbench.harness.runner import evaluate_together
    from workbench.report_text import format_eval, format_side_by_side

    results = evaluate_together(task, solutions, options)
    if as_json:
        print(json.dumps([json_safe(r.to_dict()) for r in results], indent=2))
    else:
        for result in results:
            print(format_eval(result))
            print()
        print(format_side_by_side(results))
    return EXIT_OK if results[0].correct else EXIT_FAILED
