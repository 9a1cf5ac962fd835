"""The session commands of `workbench`: run, resume, branch, replay; their arguments, and the core's errors in the
command line's words."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbench.agent.provider import REASONING_EFFORTS
from workbench.guidance import parse_levels
from workbench.session.specs import MAX_THINKING_TOKENS, ProviderSpec, ScriptMissing, SessionUsageError

__all__ = ["SessionUsageError", "add_parsers", "cli_terms", "levels_of", "provider_spec", "raised_limits_of"]


def add_parsers(sub: Any) -> None:
    run = sub.add_parser("run", help="run an agent session headless")
    run.add_argument("task")
    group = run.add_mutually_exclusive_group()
    group.add_argument("--guided", metavar="LEVELS", help="guidance levels to give: L1,L2,L3 or all")
    group.add_argument("--unguided", action="store_true", help="no guidance (the default)")
    _provider_args(run)
    run.add_argument("--budget", type=int, default=350, help="turns (default 350)")
    run.add_argument("--wall-clock", type=float, help="seconds before the session ends")
    run.add_argument("--max-cost", type=float, help="USD before the session ends")
    run.add_argument("--mode", choices=("cuda", "interpret"), help="how evals run (default: cuda with a GPU)")
    run.add_argument("--context-window", type=int, help="tokens the requests are kept inside (default: the model's)")
    scoring_help = "which submission counts: the last one (the paper's rule, default) or the best correct one"
    run.add_argument("--scoring", choices=("final", "best"), default="final", help=scoring_help)
    run.add_argument("--human", action="store_true", help="a session you drive, with no model: made, its folder "
                     "printed, then opened in the app (o, then r) to edit, evaluate and submit")  # fmt: skip

    resume = sub.add_parser("resume", help="continue a killed or interrupted session from its last complete turn")
    resume.add_argument("session", type=Path)
    _provider_args(resume, defaults_from_log=True)
    resume.add_argument("--budget", type=int, help="turns in all, raised (a session that spent its turns needs it)")
    resume.add_argument("--wall-clock", type=float, help="seconds this run may take (default: the session's)")
    resume.add_argument("--max-cost", type=float, help="USD in all, raised (a session that reached its limit needs it)")

    branch = sub.add_parser("branch", help="a new session whose history is the first N turns of another")
    branch.add_argument("session", type=Path)
    branch.add_argument("--turn", type=int, required=True)
    branch.add_argument("--guided", metavar="LEVELS", help="change the guidance of the branch")
    _provider_args(branch, defaults_from_log=True)

    replay = sub.add_parser("replay", help="print a saved session's transcript")
    replay.add_argument("session", type=Path)


def _provider_args(parser: argparse.ArgumentParser, defaults_from_log: bool = False) -> None:
    suffix = " (default: the session's)" if defaults_from_log else ""
    parser.add_argument("--provider", choices=("anthropic", "openai", "scripted"), help=f"model provider{suffix}")
    parser.add_argument("--model", help=f"model name{suffix}")
    parser.add_argument("--base-url", help="API base URL (OpenAI-compatible servers, proxies)")
    parser.add_argument("--script", type=Path, help="for --provider scripted: a script file or a session to replay")
    parser.add_argument("--thinking", metavar="TOKENS", help=f"for --provider anthropic: extended thinking, tokens a "
                        f"reply may think (1024 to {MAX_THINKING_TOKENS}; 0: none){suffix}")  # fmt: skip
    parser.add_argument("--reasoning-effort", metavar="LEVEL", help="for --provider openai: the server's reasoning "
                        f"effort ({', '.join(REASONING_EFFORTS)}; for servers that take one){suffix}")  # fmt: skip
    parser.add_argument("--sessions", type=Path, help="sessions folder (default: ./sessions or $WORKBENCH_SESSIONS)")


def raised_limits_of(args: argparse.Namespace) -> dict[str, float | int]:
    """The limits `workbench resume` was given, as the log records them; each must be positive."""
    given = {"budget": args.budget, "wall_clock_s": args.wall_clock, "cost_limit_usd": args.max_cost}
    for option, value in zip(("--budget", "--wall-clock", "--max-cost"), given.values(), strict=True):
        if value is not None and value <= 0:
            raise SessionUsageError(f"{option} must be above 0, not {value}")
    return {key: value for key, value in given.items() if value is not None}


def provider_spec(args: argparse.Namespace, default: str | None = None) -> ProviderSpec:
    """The provider the options name; what they leave out is `default` (run: anthropic) or, for resume and branch,
    the session's own."""
    return ProviderSpec(args.provider or default, args.model, args.base_url, args.script,
                        thinking=thinking_of(getattr(args, "thinking", None)),
                        reasoning_effort=effort_of(getattr(args, "reasoning_effort", None)))  # fmt: skip


def thinking_of(text: str | None) -> int | None:
    """--thinking TOKENS as a number; its range is checked where the provider is made (specs.py)."""
    if text is None:
        return None
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise SessionUsageError(f"--thinking wants a number of tokens (1024 to {MAX_THINKING_TOKENS}, or 0: none), "
                                f"not {text!r}") from None  # fmt: skip


def effort_of(text: str | None) -> str | None:
    if text is not None and text not in REASONING_EFFORTS:
        raise SessionUsageError(f"--reasoning-effort is one of {', '.join(REASONING_EFFORTS)}, not {text!r}")
    return text


@contextlib.contextmanager
def cli_terms(script_help: str = "a script or a saved session") -> Iterator[None]:
    """The core's errors that name what is missing, said as the option that gives it."""
    try:
        yield
    except ScriptMissing:
        raise SessionUsageError(f"--provider scripted needs --script FILE ({script_help})") from None


def levels_of(text: str | None) -> set[int]:
    if not text:
        return set()
    try:
        return parse_levels(text)
    except ValueError as exc:
        raise SessionUsageError(str(exc)) from None
