"""The `workbench` command line: the parser, and which module runs each command. Exit codes and the errors that map
to them: cli/errors.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from workbench.cli.errors import EXIT_USAGE, UsageError, run_command

DEFAULT_TASK = "rmsnorm_residual"

__all__ = ["UsageError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    from workbench.bench.cli import add_parser as add_bench_parsers
    from workbench.cli import evaluate, export, score, suite, tasks
    from workbench.cli.session_args import add_parsers as add_session_parsers
    from workbench.judge.cli import add_parser as add_judge_parser

    parser = argparse.ArgumentParser(
        prog="workbench",
        description="D2K Workbench: LLM agents, expert designs and Triton kernels. With no command, opens the "
        f"terminal workbench. `workbench eval {DEFAULT_TASK} expert` evaluates an expert kernel.",
        epilog="The app's own options come before any command: workbench [--sessions DIR] [--scripts DIR] "
        "[--mode cuda|interpret] [--budget N] (workbench --sessions . --help lists them).",
    )
    sub = parser.add_subparsers(dest="command")
    tasks.add_parser(sub)
    evaluate.add_parser(sub)
    add_session_parsers(sub)
    add_judge_parser(sub)
    add_bench_parsers(sub)
    suite.add_parser(sub)
    score.add_parser(sub)
    export.add_parser(sub)
    return parser


def _command(args: argparse.Namespace) -> Callable[[], int]:
    """The function that runs the command `args` names (imported only when it runs: the app loads Textual, a
    session an SDK, an eval torch)."""
    if args.command is None:
        from workbench.tui.app import run_app

        return lambda: run_app([])
    if args.command == "tasks":
        from workbench.cli.tasks import tasks_command

        return lambda: tasks_command(args)
    if args.command == "eval":
        from workbench.cli.evaluate import eval_command

        return lambda: eval_command(args)
    if args.command == "suite":
        from workbench.cli.suite import suite_command

        return lambda: suite_command(args)
    if args.command == "score":
        from workbench.cli.score import score_command

        return lambda: score_command(args)
    if args.command in ("bench", "report"):
        from workbench.bench.cli import handle as bench

        return lambda: bench(args)
    if args.command == "judge":
        from workbench.judge.cli import handle as judge

        return lambda: judge(args)
    if args.command == "export":
        from workbench.cli.export import export_command

        return lambda: export_command(args)
    if args.command in ("run", "resume", "branch", "replay"):
        from workbench.cli.sessions import handle

        return lambda: handle(args)
    return lambda: EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        from workbench.tui.app import run_app  # `workbench --sessions DIR`: the app's own options, no command

        return run_app(argv)
    return run_command(_command(build_parser().parse_args(argv)))
