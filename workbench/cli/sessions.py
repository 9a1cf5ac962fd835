"""What `workbench run | resume | branch | replay` do: a call each to the Session service, and the printing."""

from __future__ import annotations

import argparse
import json
import os
import sys

from workbench.agent.provider import reasoning_effort_of, thinking_budget_of
from workbench.cli.session_args import cli_terms, levels_of, provider_spec, raised_limits_of
from workbench.session.events import (
    Compaction,
    Error,
    EvalResult,
    Event,
    Human,
    Interrupt,
    ModelResponse,
    SessionEnd,
    SessionResumed,
    Submission,
    ToolCall,
    ToolResult,
    event_to_dict,
)
from workbench.session.headless import TurnPrinter, reasoning_words, thinking_text
from workbench.session.loop import Limits, LoopCallbacks
from workbench.session.service import PersonAtKeyboard, Session
from workbench.session.specs import SessionUsageError, make_limits

EXIT_OK, EXIT_FAILED = 0, 1


def run(args: argparse.Namespace) -> int:
    limits = make_limits(args.budget, args.wall_clock, args.max_cost, args.context_window, args.scoring)
    if args.human:
        return _made_for_a_person(args, limits)
    with cli_terms():
        session = Session.new(args.task, levels_of(args.guided), provider_spec(args, default="anthropic"), limits,
                              args.mode, args.sessions)  # fmt: skip
    print(f"session {session.folder}{_settings(session)}", flush=True)
    return _drive(session)


def _made_for_a_person(args: argparse.Namespace, limits: Limits) -> int:
    """A session a person drives: nothing runs headless (no one is at the keyboard); the app drives it."""
    if args.provider or args.model or args.script:
        raise SessionUsageError("--human is a session with no model: drop --provider, --model and --script")
    with cli_terms():
        session = Session.new(args.task, levels_of(args.guided), PersonAtKeyboard(), limits, args.mode, args.sessions)
    session.close()
    print(f"session {session.folder} (you drive it: open it in the app, `workbench --sessions "
          f"{session.folder.parent}`, then o and r)", flush=True)  # fmt: skip
    return EXIT_OK


def resume(args: argparse.Namespace) -> int:
    with cli_terms():
        session = Session.resume(args.session, provider_spec(args), raised=raised_limits_of(args))
    note = " (a torn last line from a kill was dropped)" if session.torn else ""
    print(f"resuming {session.folder} after turn {session.resumed_from}{note}{_settings(session)}", flush=True)
    return _drive(session)


def branch(args: argparse.Namespace) -> int:
    levels = levels_of(args.guided) if args.guided else None
    with cli_terms():
        session = Session.branch(args.session, args.turn, levels, provider_spec(args), args.sessions)
    print(f"session {session.folder} (branched from {args.session.name} at turn {args.turn}){_settings(session)}",
          flush=True)  # fmt: skip
    return _drive(session)


def _settings(session: Session) -> str:
    """How much the model reasons in this run (a resume's or branch's as overridden, not only as recorded)."""
    provider = session.setup.provider
    words = reasoning_words(thinking_budget_of(provider), reasoning_effort_of(provider))
    return f"; {words}" if words else ""


def _drive(session: Session) -> int:
    """Run it headless, a line a turn; 0 when a correct submission was made, else 1."""
    reason = session.run(LoopCallbacks(on_event=TurnPrinter(session.setup.limits.budget)), on_signals=True)
    try:
        sys.stdout.flush()
    except OSError:  # stdout was closed (`workbench run ... | head -1`): keep the exit-time flush from raising again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    loop = session.loop
    assert loop is not None  # run() made it
    if loop.failure:
        print(f"workbench: the session ended on an error: {loop.failure} ({session.folder})", file=sys.stderr)
    return EXIT_OK if reason != "error" and loop.state.correct_submissions > 0 else EXIT_FAILED


def replay(args: argparse.Namespace) -> int:
    record = Session.open(args.session)
    start = record.start
    reasoning = reasoning_words(start.thinking_budget, start.reasoning_effort)
    print(f"{start.session_id}: task {start.task}, levels {start.levels or 'none'}, "
          f"{start.provider}/{start.model}{' (scripted)' if start.scripted else ''}"
          f"{', ' + reasoning if reasoning else ''}")  # fmt: skip
    for event in record.effective:
        line = _describe(event)
        if line:
            print(line)
    if record.torn:
        print("(the log's last line was torn by a kill and is not shown)")
    return EXIT_OK


def _describe(event: Event) -> str | None:
    turn = event.turn
    if isinstance(event, ModelResponse):
        thought = thinking_text(event.content)
        text = " ".join(b.get("text", "") for b in event.content if b["type"] == "text").strip()
        lines = [f"[{turn:>3}] thinking: {thought[:300]}"] if thought else []
        lines += [f"[{turn:>3}] agent: {text[:300]}"] if text else []
        return "\n".join(lines) or None
    if isinstance(event, ToolCall):
        return f"[{turn:>3}] {event.name}({json.dumps(event.input)[:200]})"
    if isinstance(event, ToolResult):
        first = event.text.strip().splitlines()[:1]
        return f"[{turn:>3}]   -> {'ERROR ' if event.is_error else ''}{first[0][:200] if first else ''}"
    if isinstance(event, EvalResult):
        return "\n".join(eval_lines(event))
    if isinstance(event, Compaction):
        gone = "-".join(map(str, event.removed_turns))
        return (f"[{turn:>3}] context compacted: turns {gone} summarised, ~{event.tokens_before:,} -> "
                f"~{event.tokens_after:,} tokens ({event.reason})")  # fmt: skip
    if isinstance(event, (Human, Interrupt, Error, SessionEnd, SessionResumed, Submission)):
        fields = event_to_dict(event)
        details = {k: v for k, v in fields.items() if k not in ("seq", "time", "turn", "kind", "result", "diff",
                                                                  "files")}  # fmt: skip
        return f"[{turn:>3}] {event.kind}: {json.dumps(details)[:300]}"
    return None


def handle(args: argparse.Namespace) -> int:
    """Run `workbench run | resume | branch | replay`."""
    return int({"run": run, "resume": resume, "branch": branch, "replay": replay}[args.command](args))


def eval_lines(event: EvalResult) -> list[str]:
    """An evaluation as its turn saw it: the summary the loop wrote with it (eval_feedback.compact_eval: every
    workload's verdict, times, worst element or error), under a line that says who ran it."""
    verdict = "CORRECT" if event.correct else "NOT CORRECT"
    header = f"[{event.turn:>3}] eval by {event.by}: {verdict}"
    return [header] + [f"        {line}" for line in event.summary.splitlines()]
