"""`workbench judge`: judge a session (`workbench judge SESSION`) or files (`--task T --solution F [--design D]`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.agent.provider import Interrupted, Provider, ProviderError
from workbench.cli.errors import EXIT_FAILED, EXIT_OK, run_command
from workbench.judge.judge import JudgeUsageError, judge_files, judge_session
from workbench.judge.result import LEVELS, PARTS, Judgement


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the `judge` command to the subparsers of the main CLI."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "judge", help="score a design note and a solution against the expert design (runtime-blind)"
    )
    parser.add_argument("session", nargs="?", type=Path, help="a session folder: judged at its end, logged in it")
    parser.add_argument("--turn", type=int, help="with SESSION: judge the files after this turn")
    parser.add_argument("--task", help="without SESSION: the task (name or folder)")
    parser.add_argument("--solution", type=Path, help="without SESSION: the solution file")
    parser.add_argument("--design", type=Path, help="without SESSION: the design note (none: design scores 0)")
    parser.add_argument("--provider", choices=("anthropic", "openai", "scripted"), default="anthropic",
                        help="the judge's model provider (default anthropic)")  # fmt: skip
    parser.add_argument("--model", help="the judge's model (default: the provider's)")
    parser.add_argument("--base-url", help="API base URL (OpenAI-compatible servers, proxies)")
    parser.add_argument("--script", type=Path, help="for --provider scripted: a JSON script of judge answers")
    parser.add_argument("--json", action="store_true", help="print the judgement as JSON")
    return parser


def handle(args: argparse.Namespace) -> int:
    """Run `workbench judge`; bad input raises JudgeUsageError (exit 2), a model that fails exits 1."""
    if args.session is not None and (args.task or args.solution or args.design):
        raise JudgeUsageError("give a SESSION or --task/--solution/--design, not both")
    if args.session is None and not (args.task and args.solution):
        raise JudgeUsageError("give a SESSION folder, or --task T --solution F [--design D]")
    if args.turn is not None and args.session is None:
        raise JudgeUsageError("--turn needs a SESSION")
    provider = _provider(args)
    try:
        if args.session is not None:
            judgement = judge_session(args.session, provider, args.turn)
        else:
            judgement = judge_files(args.task, args.solution, args.design, provider)
    except (ProviderError, Interrupted) as exc:
        print(f"workbench: error: the judge's model failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(json.dumps(judgement.to_dict(), indent=1) if args.json else format_judgement(judgement))
    return EXIT_OK


def _provider(args: argparse.Namespace) -> Provider:
    from workbench.cli.session_args import SessionUsageError, cli_terms, provider_spec

    try:
        with cli_terms(script_help="a JSON script of judge answers"):
            return provider_spec(args).make()
    except SessionUsageError as exc:
        raise JudgeUsageError(str(exc)) from None


def format_judgement(judgement: Judgement) -> str:
    """The six scores as a table, then each level's reason and citations."""
    where = f" (session {judgement.session}, turn {judgement.turn})" if judgement.session else ""
    calls = f"{judgement.attempts} model call{'s' if judgement.attempts > 1 else ''}"
    lines = [
        f"judge {judgement.task}{where} by {judgement.provider}/{judgement.model}, "
        f"prompt {judgement.prompt_sha256[:12]}, {calls}",
        *([f"judged: {judgement.judged['description']}"] if judgement.judged else []),
        *flag_lines(judgement),
        "",
        f"{'':16}{'L1':>5}{'L2':>5}{'L3':>5}{'mean':>7}",
    ]
    means = {"design": ("JSdesign", judgement.js_design), "implementation": ("JSimpl", judgement.js_impl)}
    for part in PARTS:
        scores = "".join(f"{judgement.part(part)[level].score:>5}" for level in LEVELS)
        label, mean = means[part]
        lines.append(f"{part:16}{scores}{mean:>7.1f}  {label}")
    for part in PARTS:
        for level in LEVELS:
            score = judgement.part(part)[level]
            lines += ["", f"{part} {level}: {score.score}  {score.reason}"]
            lines += [
                f"  {c.item or '-':6}{c.where()}  {json.dumps(c.quote, ensure_ascii=False)}" for c in score.evidence
            ]
    if judgement.problems:
        lines += ["", "the first answer was rejected:"] + [f"  - {problem}" for problem in judgement.problems]
    return "\n".join(lines)


def flag_lines(judgement: Judgement) -> list[str]:
    """The text of the judged files addressed to the judge, each with where it is and why it was flagged."""
    if not judgement.flags:
        return []
    count = len(judgement.flags)
    lines = [f"FLAGGED: {count} passage{'s' if count > 1 else ''} addressed to the judge (not obeyed, not evidence):"]
    for flag in judgement.flags:
        lines.append(f"  {flag.where()}  {flag.why}: {json.dumps(flag.quote, ensure_ascii=False)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """`workbench judge ...` on its own, with the main CLI's error handling (for tests and scripts)."""
    parser = argparse.ArgumentParser(prog="workbench")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return run_command(lambda: handle(args))
