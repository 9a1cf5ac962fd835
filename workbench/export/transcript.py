"""The transcript on the page: a fold a turn, holding what the agent said, each tool call and its result, the evals,
what a person did, interrupts, errors, compactions, and solution.py after the turn when it changed."""

from __future__ import annotations

import json

from workbench.export.evals import eval_block, verdict
from workbench.export.markup import Html, code, code_for_path, fold, join, pre, tag
from workbench.export.view import SessionView, TurnView
from workbench.session.events import (
    Compaction,
    Error,
    EvalResult,
    Event,
    Files,
    Human,
    Interrupt,
    ModelResponse,
    SessionEnd,
    SessionResumed,
    Submission,
    ToolCall,
    ToolResult,
)

LONG_OUTPUT = 40  # lines: a tool result longer than this is folded on its own


def transcript(view: SessionView) -> Html:
    return tag("div", *(_turn(view, t) for t in view.turns), cls="transcript")


def _turn(view: SessionView, turn: TurnView) -> Html:
    words = [f"turn {turn.turn}" if turn.turn else "set-up (turn 0)"]
    if turn.inherited:
        words.append("inherited from the parent session")
    if turn.tools:
        words.append(", ".join(turn.tools))
    words += [verdict(e) for e in turn.evals]
    if turn.solution is not None:
        words.append("solution.py changed")
    body = [_event(view, e) for e in turn.events]
    if turn.solution is not None:
        body.append(fold("solution.py after this turn", code(turn.solution), cls="solution"))
    return fold(" · ".join(words), *body, cls="turn")


def _event(view: SessionView, event: Event) -> str:
    if isinstance(event, ModelResponse):
        return _response(event)
    if isinstance(event, ToolCall):
        return tag("div", tag("span", f"{event.name}", cls="tool-name"), _tool_input(event), cls="tool-call")
    if isinstance(event, ToolResult):
        return _tool_result(event)
    if isinstance(event, (EvalResult, Submission)):
        match = next(v for v in view.evals if v.event is event)
        return eval_block(match)
    if isinstance(event, Files):
        return _files(event)
    return _other(event)


def _response(event: ModelResponse) -> Html:
    parts = []
    for block in event.content:
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            parts.append(tag("div", str(block["text"]), cls="agent-text"))
        elif kind == "thinking":
            parts.append(fold("thinking", pre(str(block.get("thinking", ""))), cls="thinking"))
        elif kind == "redacted_thinking":
            parts.append(tag("div", "(thinking redacted by the provider)", cls="note"))
    if event.stop_reason == "max_tokens":
        parts.append(tag("div", "(the reply was cut off at max_tokens)", cls="note"))
    return tag("div", tag("div", f"agent ({event.model})", cls="who"), *parts, cls="response") if parts else Html("")


def _tool_input(event: ToolCall) -> Html:
    """The call's arguments: a file written shown as highlighted code, a shell command as bash, the rest as JSON."""
    args = dict(event.input)
    content = args.pop("content", None) if event.name == "write_file" else None
    command = args.pop("command", None) if event.name == "bash" else None
    parts: list[str] = []
    if args:
        parts.append(code(json.dumps(args, indent=1, ensure_ascii=False), "json"))
    if isinstance(command, str):
        parts.append(code(command, "bash"))
    if isinstance(content, str):
        path = str(args.get("path", ""))
        parts.append(fold(f"content of {path} ({len(content.splitlines())} lines)", code_for_path(path, content)))
    return join(parts)


def _tool_result(event: ToolResult) -> Html:
    lines = event.text.splitlines()
    cls = "tool-result error" if event.is_error else "tool-result"
    label = f"{event.name} {'error' if event.is_error else 'result'}"
    if len(lines) > LONG_OUTPUT:
        return tag("div", fold(f"{label} ({len(lines)} lines)", pre(event.text)), cls=cls)
    return tag("div", tag("div", label, cls="who"), pre(event.text), cls=cls)


def _files(event: Files) -> Html:
    changed = sorted(event.changed) + sorted(event.blobs_changed or {})
    gone = event.deleted + (event.blobs_deleted or [])
    words = []
    if changed:
        words.append("changed: " + ", ".join(changed))
    if gone:
        words.append("deleted: " + ", ".join(gone))
    return tag("div", "workspace " + "; ".join(words), cls="note") if words else Html("")


def _other(event: Event) -> Html:
    """What a person did, interrupts, errors, compactions, resumes and the end: a line each, details folded."""
    if isinstance(event, Human):
        body = [pre(event.text)] if event.text else []
        if event.diff:
            body.append(code(event.diff, "diff"))
        line = f"person: {event.action}"
        return tag("div", fold(line, *body) if body else line, cls="human")
    if isinstance(event, Interrupt):
        what = f"the tool {event.tool}" if event.during == "tool" else "the model's reply"
        partial = [pre(event.partial_text)] if event.partial_text else []
        return tag("div", f"interrupted by a person during {what}", *partial, cls="interrupted")
    if isinstance(event, Error):
        trace = [fold("traceback", pre(event.traceback))] if event.traceback else []
        return tag("div", f"error: {event.message}", *trace, cls="error")
    if isinstance(event, Compaction):
        gone = "–".join(map(str, event.removed_turns))
        return tag("div", f"context compacted ({event.reason}): turns {gone} summarised, ~{event.tokens_before:,} → "
                          f"~{event.tokens_after:,} tokens", cls="note")  # fmt: skip
    if isinstance(event, SessionResumed):
        return tag("div", f"resumed after turn {event.from_turn} with {event.provider}/{event.model}", cls="note")
    if isinstance(event, SessionEnd):
        return tag("div", f"session ended: {event.reason} after {event.turns} turns", cls="note")
    return Html("")
