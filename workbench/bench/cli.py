"""`workbench bench` (run the paired protocol) and `workbench report` (the paper's tables from a bench)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from workbench.bench.plan import (
    BenchPlan,
    BenchUsageError,
    ModelSpec,
    condition_levels,
    load_plan,
    parse_models,
    parse_scripts,
    save_plan,
)
from workbench.cli.errors import EXIT_FAILED, EXIT_OK, run_command
from workbench.harness.sandbox import Confinement, confinement, unconfined_warning
from workbench.session.writer import SessionBusy, Writer


def add_parser(sub: Any) -> None:
    """Add `bench` and `report` to the subparsers of the main CLI."""
    bench = sub.add_parser("bench", help="run task x model x condition x seed sessions (resumable)")
    bench.add_argument("--tasks", nargs="+", default=[], help="task names (space or comma separated)")
    bench.add_argument("--models", nargs="+", default=[], help="provider:model, e.g. anthropic:claude-sonnet-4-5")
    bench.add_argument("--conditions", default="unguided,all", help="unguided, all, L1, L2, L3 (default unguided,all)")
    bench.add_argument("--seeds", type=int, default=1, help="sessions per task, model and condition (default 1)")
    bench.add_argument("--budget", type=int, default=350, help="turns per session (default 350)")
    bench.add_argument("--wall-clock", type=float, help="seconds per session")
    bench.add_argument("--max-cost", type=float, help="USD per session (it ends at the first turn at or over it)")
    bench.add_argument(
        "--max-bench-cost",
        type=float,
        metavar="USD",
        help="USD for the whole bench: at it, no session starts and those running stop (resumable)",
    )
    bench.add_argument("--thinking", type=int, metavar="TOKENS",
                       help="extended thinking budget for the anthropic models (1024 to 62000)")  # fmt: skip
    bench.add_argument("--reasoning-effort", choices=("low", "medium", "high"),
                       help="reasoning effort for the openai models (OpenAI-compatible servers)")  # fmt: skip
    bench.add_argument("--dry-run", action="store_true",
                       help="print the plan and an estimate of its cost; start nothing, spend nothing")  # fmt: skip
    bench.add_argument("--parallel", type=int, default=1, help="sessions at once (default 1)")
    bench.add_argument("--mode", choices=("cuda", "interpret"), help="how evals run (default: cuda with a GPU)")
    bench.add_argument("--script", action="append", default=[], metavar="NAME=PATH",
                       help="the script of model scripted:NAME (repeatable)")  # fmt: skip
    bench.add_argument("--out", type=Path, help="bench folder (default: bench/<digest of the plan>)")
    bench.add_argument("--resume", type=Path, metavar="BENCH_DIR", help="continue the bench in this folder")
    bench.add_argument("--ray", metavar="ADDRESS", help="run the sessions as Ray tasks on this cluster")
    bench.add_argument("--allow-unconfined", action="store_true",
                       help="run even where the agent's shell cannot be confined (recorded in the bench)")  # fmt: skip

    report = sub.add_parser("report", help="the paper's tables from a bench's session logs")
    report.add_argument("bench_dir", type=Path)
    report.add_argument("--baseline", type=Path, help="latencies (task -> workload -> ms), or a baseline bench folder")
    report.add_argument("--out", type=Path, help="where to write (default: BENCH_DIR/report)")


def handle(args: argparse.Namespace) -> int:
    """Run `bench` or `report`; bad input raises BenchUsageError (one line and exit status 2: cli/errors.py)."""
    return _bench(args) if args.command == "bench" else _report(args)


def main(argv: list[str] | None = None) -> int:
    """The two commands on their own (`python -m workbench.bench.cli bench ...`)."""
    parser = argparse.ArgumentParser(prog="workbench")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return run_command(lambda: handle(args))


def plan_from_args(args: argparse.Namespace) -> BenchPlan:
    from workbench.session.store import detect_session_mode
    from workbench.tasks import TaskFormatError, load_task, project_root

    tasks = [t for item in args.tasks for t in item.split(",") if t]
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    if not tasks or not args.models or not conditions:
        raise BenchUsageError("bench needs --tasks, --models and --conditions (or --resume BENCH_DIR)")
    if args.seeds < 1 or args.budget < 1:
        raise BenchUsageError("--seeds and --budget must be at least 1")
    if args.wall_clock is not None and not (math.isfinite(args.wall_clock) and args.wall_clock > 0):
        raise BenchUsageError(f"--wall-clock must be a positive number of seconds, not {args.wall_clock:g}")
    _cap(args.max_cost, "--max-cost")
    models = parse_models([m for item in args.models for m in item.split(",") if m], parse_scripts(args.script))
    models = _with_reasoning(models, getattr(args, "thinking", None), getattr(args, "reasoning_effort", None))
    root = project_root()
    guided = any(condition_levels(c) for c in conditions)
    for name in tasks:
        try:
            task = load_task(name, root)
        except TaskFormatError as exc:
            raise BenchUsageError(str(exc)) from None
        if guided and task.guidance_path is None:
            raise BenchUsageError(f"task {name} has no guidance, so it cannot run a guided condition")
    return BenchPlan(tasks, models, conditions, args.seeds, args.budget, args.mode or detect_session_mode(),
                     str(root), args.wall_clock, args.max_cost)  # fmt: skip


def _with_reasoning(models: list[ModelSpec], thinking: int | None, effort: str | None) -> list[ModelSpec]:
    """--thinking goes to every anthropic model, --reasoning-effort to every openai one; an option that reaches no
    model, or a value the API would refuse, is a one-line error."""
    from dataclasses import replace

    from workbench.bench.sessions import model_spec
    from workbench.session.specs import SessionUsageError

    for option, value, provider in (("--thinking", thinking, "anthropic"), ("--reasoning-effort", effort, "openai")):
        if value is not None and not any(m.provider == provider for m in models):
            raise BenchUsageError(f"{option} is for {provider} models, and --models names none")
    chosen = [replace(m, thinking=thinking if m.provider == "anthropic" else None,
                      reasoning_effort=effort if m.provider == "openai" else None) for m in models]  # fmt: skip
    for model in chosen:
        try:
            model_spec(model).reasoning_options(model.provider)
        except SessionUsageError as exc:
            raise BenchUsageError(f"model {model.label}: {exc}") from None
    return chosen


def _cap(value: float | None, option: str) -> float | None:
    from workbench.bench.spend import check_cap

    try:
        return check_cap(value, option)
    except ValueError as exc:
        raise BenchUsageError(str(exc)) from None


def _check_priced(plan: BenchPlan, bench_cap: float | None) -> None:
    """A cap counts dollars: a model without a price would spend without counting against it."""
    from workbench.agent.pricing import price_for

    caps = [name for name, value in (("--max-cost", plan.cost_usd), ("--max-bench-cost", bench_cap)) if value]
    unpriced = [m.label for m in plan.models if price_for(m.model) is None]
    if caps and unpriced:
        raise BenchUsageError(f"{' and '.join(caps)} cannot count the spend of {', '.join(unpriced)}: no price is "
                              "known for it (add it to the prices file, WORKBENCH_PRICES)")  # fmt: skip


def _check_models(plan: BenchPlan) -> None:
    """Every model can be made (its key is set, its script reads) before any session folder is."""
    from workbench.bench.sessions import model_spec
    from workbench.session.specs import SessionUsageError

    for model in plan.models:
        try:
            model_spec(model).make()
        except SessionUsageError as exc:
            raise BenchUsageError(f"model {model.label}: {exc}") from None


def _check_confinement(allowed: bool) -> Confinement:
    """A paired result means nothing if an unguided agent could read the guidance: refuse unless allowed."""
    state = confinement()
    if not state.works and not allowed:
        raise BenchUsageError(f"the agent's shell and evals cannot be confined here ({state.reason}); "
                              "pass --allow-unconfined to run anyway (recorded in the bench)")  # fmt: skip
    if not state.works:
        print(unconfined_warning(), file=sys.stderr)
    return state


def _bench(args: argparse.Namespace) -> int:
    bench_cap = _cap(args.max_bench_cost, "--max-bench-cost")
    if args.resume is not None:
        bench_dir, plan = args.resume, load_plan(args.resume)
    else:
        plan = plan_from_args(args)
        bench_dir = args.out or Path("bench") / plan.digest()
    _check_priced(plan, bench_cap)
    if args.dry_run:
        return _dry_run(plan, bench_dir, bench_cap)
    sandbox = _check_confinement(args.allow_unconfined)
    writer = _claim(bench_dir)
    with writer:
        return _run_claimed(args, plan, bench_dir, sandbox, bench_cap)


def _dry_run(plan: BenchPlan, bench_dir: Path, bench_cap: float | None) -> int:
    """The plan and its estimate; no key is asked for, no provider made, no folder written."""
    from workbench.bench.estimate import estimate, render
    from workbench.bench.plan import PLAN_FILE

    if (bench_dir / PLAN_FILE).exists() and load_plan(bench_dir).to_dict() != plan.to_dict():
        raise BenchUsageError(f"{bench_dir} holds a different plan; use another --out or --resume {bench_dir}")
    print(render(estimate(plan, bench_dir, bench_cap), bench_dir))
    return EXIT_OK


def _claim(bench_dir: Path) -> Writer:
    """One bench per folder: a second would run the same sessions again, and pay for them twice."""
    try:
        bench_dir.mkdir(parents=True, exist_ok=True)
        return Writer.claim(bench_dir, "bench")
    except (OSError, SessionBusy) as exc:
        raise BenchUsageError(str(exc)) from None


def _run_claimed(args: argparse.Namespace, plan: BenchPlan, bench_dir: Path, sandbox: Confinement,
                 bench_cap: float | None) -> int:  # fmt: skip
    from workbench.bench.progress import Progress
    from workbench.bench.runner import LocalRunner, pending_sessions, record_confinement, stop_on_signals
    from workbench.bench.spend import Spend, logged_spend

    _check_models(plan)
    save_plan(plan, bench_dir)
    record_confinement(bench_dir, sandbox)
    pending, finished = pending_sessions(plan, bench_dir)
    total = len(plan.sessions())
    print(f"bench {bench_dir}: {total} sessions, {finished} finished before, {len(pending)} to run", file=sys.stderr)
    logged = {s.key: logged_spend(bench_dir / "sessions" / s.key) for s in plan.sessions()}
    spend = Spend({key: spent for key, spent in logged.items() if spent is not None}, bench_cap, plan.cost_usd)
    progress = Progress(total, finished, spend=spend)
    runner: Any
    if args.ray:
        from workbench.bench.ray_runner import RayRunner

        runner = RayRunner(plan, bench_dir, args.ray, args.parallel, progress)
    else:
        runner = LocalRunner(plan, bench_dir, args.parallel, progress)
    with stop_on_signals(runner.stop):
        result = runner.run()
    for key, error in result.crashed.items():
        print(f"session {key} could not run: {error}", file=sys.stderr)
    if result.cap_reached:
        print(f"bench stopped by its cost cap: {spend.words()}; {len(result.capped)} sessions stopped by it; "
              f"`workbench bench --resume {bench_dir} --max-bench-cost USD` with a higher cap continues them",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    if result.complete:
        unconfined = "" if sandbox.works else ", run UNCONFINED (see confinement.jsonl)"
        print(f"bench complete: {bench_dir} (workbench report {bench_dir}){unconfined}", file=sys.stderr)
        return EXIT_OK
    print(f"bench incomplete: rerun the command or `workbench bench --resume {bench_dir}`", file=sys.stderr)
    return EXIT_FAILED


def _report(args: argparse.Namespace) -> int:
    from workbench.bench.report import build_report, write_report

    report = build_report(args.bench_dir, args.baseline)
    out = args.out or args.bench_dir / "report"
    written = write_report(report, out)
    print(f"report: {written[0]} ({len(written) - 1} more files in {out})")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
