"""How each logged event looks in the transcript: agent text, tool calls with highlighted code,
abbreviated tool results, eval results that stand out, and a person's actions in the same stream."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.syntax import Syntax
from rich.text import Text

from workbench.session.events import (
    Compaction,
    Error,
    EvalResult,
    Event,
    Human,
    Interrupt,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    SessionEnd,
    SessionResumed,
    SessionStart,
    Submission,
    ToolCall,
    ToolResult,
)

RESULT_LINES = 6  # lines of a tool result shown before it is folded
CODE_LINES = 60  # lines of code shown in a tool call's arguments
THEME = "monokai"
_LEXERS = {".py": "python", ".md": "markdown", ".json": "json", ".toml": "toml", ".sh": "bash"}


def abbreviate(text: str, lines: int) -> tuple[str, int]:
    """The first `lines` lines of text and how many were left out."""
    parts = text.rstrip("\n").splitlines()
    return "\n".join(parts[:lines]), max(0, len(parts) - lines)


def _code(text: str, lexer: str) -> RenderableType:
    shown, hidden = abbreviate(text, CODE_LINES)
    syntax = Syntax(shown, lexer, theme=THEME, line_numbers=False, word_wrap=True)
    if not hidden:
        return syntax
    return Group(syntax, Text(f"  … {hidden} more lines", style="dim"))


def tool_call(name: str, args: dict[str, Any]) -> RenderableType:
    head = Text.assemble(("▶ ", "bold magenta"), (name, "bold magenta"))
    path = str(args.get("path", ""))
    lexer = _LEXERS.get(PurePosixPath(path).suffix, "text")
    if name == "write_file" and "content" in args:
        return Group(head + Text(f" {path}"), _code(str(args["content"]), lexer))
    if name == "edit_file":
        diff = "".join(f"-{line}\n" for line in str(args.get("old", "")).splitlines())
        diff += "".join(f"+{line}\n" for line in str(args.get("new", "")).splitlines())
        return Group(head + Text(f" {path}"), _code(diff, "diff"))
    if name == "bash" and "command" in args:
        return Group(head, _code(str(args["command"]), "bash"))
    return head + Text(f" {json.dumps(args)}" if args else "", style="magenta")


def tool_result(event: ToolResult, folded: bool = True) -> RenderableType | None:
    if event.name in ("evaluate", "submit") and not event.is_error:
        return None  # its eval_result or submission event shows it, standing out
    shown, hidden = abbreviate(event.text, RESULT_LINES if folded else 10**9)
    style = "red" if event.is_error else "grey70"
    text = Text.assemble(("  ↳ ", style), (shown, style))
    if hidden:
        text.append(f"\n    … {hidden} more lines (click or f: unfold)", style="dim")
    elif is_foldable(event):
        text.append("\n    ▲ (click or f: fold)", style="dim")
    return text


def is_foldable(event: Event) -> bool:
    """A tool result longer than the lines shown folded."""
    return isinstance(event, ToolResult) and event.text.rstrip("\n").count("\n") >= RESULT_LINES


def shows(event: Event) -> bool:
    """Whether the transcript shows the event at all, without rendering it."""
    if isinstance(event, ToolResult):
        return event.is_error or event.name not in ("evaluate", "submit")
    if isinstance(event, ModelResponse):
        return any(b.get("type") == "text" and b["text"].strip() for b in event.content)
    if isinstance(event, Human):
        return event.action != "note_delivered"
    return isinstance(event, _SHOWN)


def estimate_height(event: Event, folded: bool = True) -> int:
    """About how many lines the event takes, for the scrollbar before the event is rendered."""
    if isinstance(event, ToolResult):
        lines = event.text.count("\n") + 1
        return min(lines, RESULT_LINES) + 1 if folded else lines + 1
    if isinstance(event, ToolCall):
        content = str(event.input.get("content", ""))
        return min(content.count("\n"), CODE_LINES) + 2
    if isinstance(event, ModelResponse):
        return sum(b["text"].count("\n") + 1 for b in event.content if b.get("type") == "text") + 1
    if isinstance(event, (EvalResult, Submission)):
        return event.summary.count("\n") + 3 + bool(event.result.get("speedup_geomean"))
    return 1


def eval_panel(event: EvalResult | Submission) -> RenderableType:
    correct = event.correct
    final = isinstance(event, Submission) and event.final
    kind = "SUBMISSION" + (" (final)" if final else "") if isinstance(event, Submission) else "EVAL"
    speedup = event.result.get("speedup_geomean")
    title = f"{kind} by {event.by}: {'CORRECT' if correct else 'NOT CORRECT'}"
    body = Text(event.summary)
    if speedup:  # in the body, which wraps: a title too wide for a narrow pane is cut, its figure with it
        body = Text.assemble((f"speedup {speedup:.2f}x\n", "bold"), body)
    return Panel(body, title=title, title_align="left", border_style="green" if correct else "red")


def human(event: Human) -> RenderableType:
    action = event.action
    words = {"takeover": "took over", "handback": "handed back", "pause": "paused", "evaluate": "evaluated",
             "submit": "submitted", "edit": "edited solution.py", "note": "left a note for the agent",
             "note_delivered": "note delivered to the agent"}  # fmt: skip
    line = Text.assemble(("● you ", "bold yellow"), (words.get(action, action), "yellow"))
    if event.text and action in ("note", "handback"):
        line.append(f": {event.text}", style="italic yellow")
    if action == "edit" and event.diff:
        return Group(line, _code(event.diff, "diff"))
    return line


_SHOWN = (SessionStart, ModelRequest, ToolCall, EvalResult, Submission, Interrupt, Error, ModelRetry, SessionResumed,
          SessionEnd, Compaction)  # fmt: skip


def render_event(event: Event, folded: bool = True) -> RenderableType | None:
    """The transcript's rendering of one event; None for events it does not show (files, requests).
    A long tool result shows its first lines unless `folded` is False."""
    if isinstance(event, SessionStart):
        levels = ",".join(f"L{n}" for n in event.levels) or "unguided"
        scripted = " (scripted)" if event.scripted else ""
        return Rule(f"{event.task} · {levels} · {event.provider}/{event.model}{scripted} · {event.mode}")
    if isinstance(event, ModelRequest):
        return Rule(f"turn {event.turn}", style="blue")
    if isinstance(event, ModelResponse):
        texts = [b["text"] for b in event.content if b.get("type") == "text" and b["text"].strip()]
        return Markdown("\n\n".join(texts)) if texts else None
    if isinstance(event, ToolCall):
        return tool_call(event.name, event.input)
    if isinstance(event, ToolResult):
        return tool_result(event, folded)
    if isinstance(event, (EvalResult, Submission)):
        return eval_panel(event)
    if isinstance(event, Human):
        return None if event.action == "note_delivered" else human(event)
    if isinstance(event, Interrupt):
        return Text(f"■ interrupted during the {event.during}", style="bold yellow")
    if isinstance(event, Error):
        return Text(f"✖ error: {event.message}", style="bold red")
    if isinstance(event, ModelRetry):
        return Text(f"  model retry {event.attempt}: {event.reason}", style="dim")
    if isinstance(event, SessionResumed):
        return Rule(f"resumed after turn {event.from_turn}", style="yellow")
    if isinstance(event, Compaction):
        gone = "-".join(map(str, event.removed_turns))
        return Rule(f"context compacted: turns {gone} summarised, ~{event.tokens_before:,} -> "
                    f"~{event.tokens_after:,} tokens ({event.reason})", style="cyan")  # fmt: skip
    if isinstance(event, SessionEnd):
        best = event.best_speedup
        tail = f", best correct speedup {best:.2f}x" if best else ""
        return Rule(f"session ended: {event.reason} after {event.turns} turns{tail}", style="bold")
    return None
