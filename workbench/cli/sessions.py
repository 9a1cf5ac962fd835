"""What `workbench run | resume | branch | replay` do, wired from the session's parts."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.cli.session_args import SessionUsageError, levels_of, make_provider
from workbench.session.events import (
    Error,
    Event,
    Human,
    Interrupt,
    ModelResponse,
    SessionEnd,
    SessionResumed,
    SessionStart,
    Submission,
    ToolCall,
    ToolResult,
    event_to_dict,
)
from workbench.session.headless import TurnPrinter, run_headless
from workbench.session.history import complete_prefix, complete_turns, effective, rebuild
from workbench.session.log import LogError, SessionLog
from workbench.session.loop import Limits, LoopCallbacks
from workbench.session.store import (
    SessionSetup,
    build_loop,
    claim_resume,
    create_session,
    detect_session_mode,
    load_session,
    reopen,
    sessions_root,
    task_of,
)
from workbench.session.writer import SessionBusy
from workbench.tasks import load_task

EXIT_OK, EXIT_FAILED = 0, 1


def _finish(loop_reason: str, correct_submissions: int) -> int:
    return EXIT_OK if loop_reason != "error" and correct_submissions > 0 else EXIT_FAILED


def run(args: argparse.Namespace) -> int:
    task = load_task(args.task)
    levels = levels_of(args.guided)
    if levels and task.guidance_path is None:
        raise SessionUsageError(f"task {task.name} has no guidance")
    provider = make_provider(args.provider or "anthropic", args.model, args.base_url, args.script)
    if args.budget < 1:
        raise SessionUsageError("--budget must be at least 1 turn")
    setup = SessionSetup(task, levels, provider, Limits(args.budget, args.wall_clock, args.max_cost),
                         args.mode or detect_session_mode(), args.base_url)  # fmt: skip
    folder, log = create_session(setup, sessions_root(args.sessions))
    print(f"session {folder}", flush=True)
    state = rebuild(load_session(folder)[0])
    return _drive(setup, folder, log, state)


def _drive(setup: SessionSetup, folder: Path, log: SessionLog, state: object) -> int:
    from workbench.session.history import SessionState

    assert isinstance(state, SessionState)
    printer = TurnPrinter(setup.limits.budget)
    loop = build_loop(setup, folder, log, state, LoopCallbacks(on_event=printer))
    reason = run_headless(loop)
    log.close()
    try:
        sys.stdout.flush()
    except OSError:  # stdout was closed (`workbench run ... | head -1`): keep the exit-time flush from raising again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if loop.failure:
        print(f"workbench: the session ended on an error: {loop.failure} ({folder})", file=sys.stderr)
    return _finish(reason, loop.state.correct_submissions)


def _open(folder: Path) -> tuple[list[Event], SessionStart, bool]:
    try:
        return load_session(folder)
    except LogError as exc:
        raise SessionUsageError(str(exc)) from None


def resume(args: argparse.Namespace) -> int:
    folder: Path = args.session
    try:
        writer, point = claim_resume(folder)
    except (LogError, SessionBusy) as exc:
        raise SessionUsageError(str(exc)) from None
    with writer.released_on_error():
        start, state = point.start, point.state
        provider = _provider_for(args, start, state.responses)
        limits = Limits(start.budget, start.wall_clock_s, start.cost_limit_usd)
        setup = SessionSetup(task_of(start), set(start.levels), provider, limits, start.mode, start.base_url)
    log = reopen(folder, point, provider, writer)
    note = " (a torn last line from a kill was dropped)" if point.torn else ""
    print(f"resuming {folder} after turn {state.turn}{note}", flush=True)
    return _drive(setup, folder, log, state)


def branch(args: argparse.Namespace) -> int:
    parent: Path = args.session
    events, start, _ = _open(parent)
    live = effective(events)
    turns = complete_turns(live)
    if not 0 <= args.turn <= turns:
        raise SessionUsageError(f"{parent.name} has {turns} complete turns; --turn must be 0..{turns}")
    history = complete_prefix(live, up_to_turn=args.turn)
    responses = sum(1 for e in history if isinstance(e, ModelResponse))
    task = task_of(start)
    levels = levels_of(args.guided) if args.guided else set(start.levels)
    provider = _provider_for(args, start, responses)
    limits = Limits(start.budget, start.wall_clock_s, start.cost_limit_usd)
    setup = SessionSetup(task, levels, provider, limits, start.mode, args.base_url or start.base_url)
    root = args.sessions or parent.resolve().parent
    folder, log = create_session(setup, root, history, parent={"session": str(parent), "turn": args.turn})
    print(f"session {folder} (branched from {parent.name} at turn {args.turn})", flush=True)
    state = rebuild(load_session(folder)[0])
    return _drive(setup, folder, log, state)


def _provider_for(args: argparse.Namespace, start: SessionStart, played: int) -> Provider:
    """The session's provider and model unless the command names others; a scripted one skips the
    responses already played."""
    name, model, base_url = args.provider or start.provider, args.model or start.model, args.base_url
    return make_provider(name, model, base_url or start.base_url, _script(args, start), start_at=played)


def _script(args: argparse.Namespace, start: SessionStart) -> Path | None:
    """--script, else the script the session was started with (when it still exists)."""
    if args.script is not None or (args.provider or start.provider) != "scripted":
        return args.script
    recorded = start.script
    return Path(recorded) if recorded and Path(recorded).exists() else None


def replay(args: argparse.Namespace) -> int:
    events, start, torn = _open(args.session)
    print(f"{start.session_id}: task {start.task}, levels {start.levels or 'none'}, "
          f"{start.provider}/{start.model}{' (scripted)' if start.scripted else ''}")  # fmt: skip
    for event in effective(events):
        line = _describe(event)
        if line:
            print(line)
    if torn:
        print("(the log's last line was torn by a kill and is not shown)")
    return EXIT_OK


def _describe(event: Event) -> str | None:
    turn = event.turn
    if isinstance(event, ModelResponse):
        text = " ".join(b.get("text", "") for b in event.content if b["type"] == "text").strip()
        return f"[{turn:>3}] agent: {text[:300]}" if text else None
    if isinstance(event, ToolCall):
        return f"[{turn:>3}] {event.name}({json.dumps(event.input)[:200]})"
    if isinstance(event, ToolResult):
        first = event.text.strip().splitlines()[:1]
        return f"[{turn:>3}]   -> {'ERROR ' if event.is_error else ''}{first[0][:200] if first else ''}"
    if isinstance(event, (Human, Interrupt, Error, SessionEnd, SessionResumed, Submission)):
        fields = event_to_dict(event)
        details = {k: v for k, v in fields.items() if k not in ("seq", "time", "turn", "kind", "result", "diff")}
        return f"[{turn:>3}] {event.kind}: {json.dumps(details)[:300]}"
    return None
