"""The `workbench` command line. Exit codes: 0 ok, 1 a solution failed, 2 bad usage or input."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from workbench.cli.session_args import SessionUsageError
from workbench.harness.spec import EVAL_BUDGET_S
from workbench.jsonsafe import json_safe
from workbench.judge.judge import JudgeUsageError
from workbench.session.log import LogError
from workbench.session.store import SessionStoreError
from workbench.tasks import Task, TaskFormatError, load_task, project_root, task_names

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # what a shell reports for a process killed by SIGPIPE
DEFAULT_TASK = "rmsnorm_residual"


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="D2K Workbench: LLM agents, expert designs and Triton kernels. With no command, opens the "
        f"terminal workbench. `workbench eval {DEFAULT_TASK} expert` evaluates an expert kernel.",
        epilog="The app's own options come before any command: workbench [--sessions DIR] [--scripts DIR] "
        "[--mode cuda|interpret] [--budget N] (workbench --sessions . --help lists them).",
    )
    sub = parser.add_subparsers(dest="command")
    tasks = sub.add_parser("tasks", help="list the tasks and their workloads")
    tasks.add_argument("--json", action="store_true", help="print JSON")

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

    from workbench.bench.cli import add_parser as add_bench_parsers
    from workbench.cli.session_args import add_parsers
    from workbench.judge.cli import add_parser as add_judge_parser

    add_parsers(sub)
    add_judge_parser(sub)
    add_bench_parsers(sub)

    su = sub.add_parser("suite", help="the suite's expert latencies, speedups, SOL and ladders from a recorded GPU run")
    su.add_argument("--run", type=Path, help="a suite.json (default: the latest under docs/runs/)")
    su.add_argument("--json", action="store_true")
    su.add_argument("--task", help="one task: its design ladder, each level's step (and --eval beside them)")
    su.add_argument("--eval", type=Path, help="with --task: an `eval --json` result to place among the rungs")

    sc = sub.add_parser("score", help="per-task speedup and Sperf from saved `eval --json` results")
    sc.add_argument("results", nargs="+", type=Path, help="eval result JSON files")
    sc.add_argument("--baseline", type=Path, help="baseline latencies (task -> workload -> ms)")
    sc.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        from workbench.tui.app import run_app  # `workbench --sessions DIR`: the app's own options, no command

        return run_app(argv)
    args = build_parser().parse_args(argv)
    try:
        if args.command is None:
            from workbench.tui.app import run_app

            return run_app([])
        if args.command == "tasks":
            return _tasks(args)
        if args.command == "eval":
            return _eval(args.task, args.solution, args)
        if args.command == "score":
            return _score(args)
        if args.command == "suite":
            return _suite(args)
        if args.command in ("bench", "report"):
            from workbench.bench.cli import handle as bench

            return bench(args)
        if args.command == "judge":
            from workbench.judge.cli import handle as judge

            return judge(args)
        if args.command in ("run", "resume", "branch", "replay"):
            from workbench.cli.session_args import handle

            return handle(args)
    except (UsageError, TaskFormatError, SessionUsageError, SessionStoreError, LogError, JudgeUsageError) as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (`workbench tasks | head`): stop quietly, and keep Python's exit-time flush
        # of stdout from raising the same error again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return EXIT_USAGE


def _load_all() -> list[Task]:
    names = task_names()
    if not names:
        raise UsageError(f"no tasks found under {project_root() / 'tasks'}")
    return [load_task(n) for n in names]


def _tasks(args: argparse.Namespace) -> int:
    tasks = _load_all()
    if args.json:
        print(json.dumps([_task_json(t) for t in tasks], indent=2))
        return EXIT_OK
    total = sum(len(t.workloads) for t in tasks)
    print(f"{len(tasks)} tasks, {total} workloads ({project_root()})")
    for task in tasks:
        print(f"\n{task.name} — {task.title}\n  {task.summary}")
        for w in task.workloads:
            flag = " [interpret]" if w.interpret else ""
            print(f"  - {w.name}: {w.describe()}{flag}")
    return EXIT_OK


def _suite(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from workbench.ladder_report import ladder_markdown
    from workbench.suite import SuiteRunError, latest_run, load_run, render_markdown, summary, workload_rows

    path = args.run or latest_run(project_root())
    if path is None:
        runs = project_root() / "docs" / "runs"
        raise UsageError(f"no recorded suite run under {runs}: run benchmarks/suite_gpu.py on a GPU")
    try:
        run = load_run(path)
    except SuiteRunError as exc:
        raise UsageError(str(exc)) from None
    if args.eval and not args.task:
        raise UsageError("--eval needs --task: the task whose ladder the result is placed on")
    if args.task and not args.json:
        result = _saved_eval(args.eval, args.task)
        print(ladder_markdown(load_task(args.task), run, result, who="eval" if args.eval else None), end="")
        return EXIT_OK
    rows = workload_rows(run, [load_task(args.task)] if args.task else _load_all())
    if args.json:
        doc = {"run": str(path), "measured_on": run.where(), "measured_at": run.measured_at, "device": run.device,
               "ceilings": run.ceilings, "command": run.command, "summary": summary(rows),
               "workloads": [asdict(r) for r in rows]}  # fmt: skip
        print(json.dumps(json_safe(doc), indent=2))
    else:
        print(render_markdown(run, rows), end="")
    return EXIT_OK


def _saved_eval(path: Path | None, task_name: str) -> dict[str, Any] | None:
    """An `eval --json` result from disk, checked to be one of this task's."""
    if path is None:
        return None
    try:
        result = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not an eval result ({exc})") from None
    if not isinstance(result, dict) or not isinstance(result.get("workloads"), list):
        raise UsageError(f"{path}: not an eval result (no 'workloads' list)")
    if result.get("task") != task_name:
        raise UsageError(f"{path}: an eval of task {result.get('task')!r}, not {task_name!r}")
    return result


def _task_json(task: Task) -> dict[str, Any]:
    return {
        "name": task.name,
        "title": task.title,
        "summary": task.summary,
        "workloads": [{"name": w.name, "seed": w.seed, "interpret": w.interpret, **w.params} for w in task.workloads],
    }


def _eval(task_name: str, solution_arg: str, args: argparse.Namespace) -> int:
    from workbench.harness import EvalOptions, EvalUsageError, evaluate
    from workbench.harness.runner import check_mode, detect_mode, select_workloads

    task = load_task(task_name)
    if solution_arg == "expert":
        if task.expert_path is None or not task.expert_path.exists():
            raise UsageError(f"task {task.name} has no expert kernel (guidance/{task.name}/expert.py)")
        solution = task.expert_path
    else:
        solution = Path(solution_arg)
    if not solution.is_file():
        raise UsageError(f"no solution file {solution}")
    mode = args.mode or detect_mode()
    try:
        check_mode(mode)
        chosen = select_workloads(task, mode, args.workload, args.hidden)
        options = EvalOptions(
            mode=mode,
            workloads=args.workload,
            seeds=args.seeds,
            timeout_s=args.timeout,
            timing={"timer": args.timer, "budget_s": args.budget},
            seed=args.seed,
            hidden=args.hidden,
        )
    except EvalUsageError as exc:
        raise UsageError(str(exc)) from None
    from workbench.harness.sandbox import unconfined_warning

    warning = unconfined_warning()
    if warning:
        print(f"workbench: {warning}", file=sys.stderr)
    if not args.json:
        names = ", ".join(w.name for w in chosen)
        print(f"evaluating {solution} on {task.name} ({mode}: {names}) ...", file=sys.stderr)
    try:
        result = evaluate(task, solution, options)
    except EvalUsageError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(json_safe(result.to_dict()), indent=2))
    else:
        from workbench.report_text import format_eval

        print(format_eval(result))
    return EXIT_OK if result.correct else EXIT_FAILED


def _score(args: argparse.Namespace) -> int:
    from workbench.harness.result import EvalResult
    from workbench.score import ScoreError, load_baseline, sperf, task_score

    try:
        baseline = load_baseline(args.baseline) if args.baseline else None
        results = []
        for path in args.results:
            try:
                results.append(EvalResult.from_dict(json.loads(path.read_text())))
            except (OSError, json.JSONDecodeError, TypeError, KeyError) as exc:
                raise UsageError(f"{path}: not an eval result ({exc})") from None
        scores = [task_score(r, baseline) for r in results]
        total = sperf(scores)
    except ScoreError as exc:
        raise UsageError(str(exc)) from None
    against = f"baseline {args.baseline}" if args.baseline else "the reference"
    if args.json:
        print(json.dumps({"against": against, "sperf": total, "tasks": [s.__dict__ for s in scores]}, indent=2))
    else:
        for s in scores:
            shown = f"{s.speedup:.3f}x" if s.speedup is not None else "incorrect (counts 0.5)"
            print(f"{s.task:24} {shown}")
        print(f"Sperf over {len(scores)} tasks against {against}: {total:.3f}")
    return EXIT_OK
