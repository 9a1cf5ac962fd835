"""Keeping every request inside the model's context window, for a whole budget of turns, on any provider.

A realistic session grows 1.3-2.5k tokens a turn, so a 200k window is full by turn ~90 of 350. The loop estimates
the next prompt's size before every request (`ContextGauge`: characters over a characters-per-token ratio learnt from
what the server reported for earlier prompts) and, when it nears the window, compacts the conversation in one large
step (`compact`): the first message (the task, guidance, environment) stays, the most recent turns stay verbatim,
and everything between becomes a summary in the first message: every evaluation and submission in a line, the files,
the agent's last words, and the current solution.py and DESIGN.md in full. Large, rare steps keep the cached prefix
valid between them. A compaction is an event in the log that holds the new first message, so that resume, branch and
replay rebuild exactly the conversation the model was sent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from workbench.agent.conversation import THINKING_BLOCKS, Message, ModelRequest, TextBlock, ToolResultBlock
from workbench.agent.provider import MIN_THINKING_TOKENS

# Tokens of context per model family (vendors' documentation, 2026-12); an unknown model (a local server's) gets the
# smallest common window unless the session names one (--context-window).
WINDOWS = [
    (re.compile(r"^claude-"), 200_000),
    (re.compile(r"^gpt-4\.1"), 1_047_576),
    (re.compile(r"^gpt-5"), 400_000),
    (re.compile(r"^(o3|o4)"), 200_000),
    (re.compile(r"^gpt-4o"), 128_000),
]
DEFAULT_WINDOW = 128_000
MAX_OUTPUT_TOKENS = 8192  # a reply's ceiling; less when the prompt nears the window
MIN_OUTPUT_TOKENS = 1024
COMPACT_AT = 0.80  # compact when the next prompt would pass this share of the room left for prompts
KEEP_RECENT = 0.30  # ... keeping this share of it as recent turns verbatim (the rest is the first message)
MIN_KEPT_TURNS = 2
SOLUTION_CHARS = 24_000  # the summary's copy of solution.py and DESIGN.md, each at most
SUMMARY_MARK = "[Context compacted"


def context_window(model: str, override: int | None = None) -> int:
    if override:
        return override
    return next((tokens for pattern, tokens in WINDOWS if pattern.match(model)), DEFAULT_WINDOW)


def request_chars(request: ModelRequest) -> int:
    """The size of a request as the server reads it, in characters of its JSON."""
    messages = [m.to_dict() for m in request.messages]
    tools = [t.to_dict() for t in request.tools]
    return len(request.system) + len(json.dumps(tools)) + len(json.dumps(messages))


@dataclass
class ContextGauge:
    """Tokens from characters, at the ratio the server's own counts of earlier prompts showed (3.5 characters a token
    for code and English until a server has said)."""

    chars_per_token: float = 3.5

    def observe(self, chars: int, prompt_tokens: int) -> None:
        if prompt_tokens > 0 and chars > 0:
            self.chars_per_token = chars / prompt_tokens

    def tokens(self, chars: int) -> int:
        return int(chars / self.chars_per_token) + 1


def output_reserve(window: int, thinking: int | None = None) -> int:
    """The tokens of the window a reply may take: its answer and, with thinking on, the thinking budget (at most half
    the window: a budget that would crowd the prompt out is turned down instead)."""
    return min(MAX_OUTPUT_TOKENS + (thinking or 0), max(MAX_OUTPUT_TOKENS, window // 2))


def output_budget(window: int, prompt_tokens: int, thinking: int | None = None) -> int:
    """max_tokens for a reply: the usual ceiling (with thinking, its budget more), shrunk when the prompt leaves less
    room in the window. With thinking it never shrinks under room for the least thinking and an answer: a prompt that
    leaves less is one the server refuses as too long, which compacts (the loop's ContextTooLong)."""
    room = window - prompt_tokens - window // 50  # a 2% margin for the estimate's error
    floor = MIN_OUTPUT_TOKENS + (MIN_THINKING_TOKENS if thinking else 0)
    return max(floor, min(output_reserve(window, thinking), room))


def needs_compaction(window: int, prompt_tokens: int, thinking: int | None = None) -> bool:
    return prompt_tokens > COMPACT_AT * (window - output_reserve(window, thinking))


def thinking_can_start(messages: list[Message]) -> bool:
    """Whether a request may have thinking on. A tool-use loop is one assistant turn to the API, and thinking cannot
    begin in its middle: when the last user message answers tool calls, the assistant message that made them must
    begin with thinking (one made with thinking off, or before a resume turned it on, does not)."""
    i = len(messages)
    answers_calls = False
    while i > 0 and messages[i - 1].role == "user":  # consecutive user messages are one turn to the API
        i -= 1
        answers_calls = answers_calls or any(isinstance(b, ToolResultBlock) for b in messages[i].content)
    if not answers_calls or i == 0:
        return True
    content = messages[i - 1].content
    return bool(content) and isinstance(content[0], THINKING_BLOCKS)


def request_thinking(setting: int | None, max_tokens: int, messages: list[Message]) -> tuple[int | None, str | None]:
    """The thinking budget a request gets (under its max_tokens, with room left for the answer) and, when that is not
    the session's `setting`, a note that says why."""
    if not setting:
        return None, None
    if not thinking_can_start(messages):
        return None, ("thinking off for this request: the tool calls it answers were made without thinking, and the "
                      "API lets thinking start only after a reply without tool calls")  # fmt: skip
    budget = min(setting, max_tokens - MIN_OUTPUT_TOKENS)
    if budget < setting:
        return budget, (f"thinking turned down to {budget} tokens for this request: the context window leaves "
                        f"{max_tokens} for the reply")  # fmt: skip
    return setting, None


@dataclass
class History:
    """What the summary of removed turns says: a line per evaluation and submission, the agent's words by turn."""

    evals: list[str] = field(default_factory=list)
    words: dict[int, str] = field(default_factory=dict)


def plan_cut(messages: list[Message], keep_tokens: int, gauge: ContextGauge, forced: bool = False) -> int | None:
    """Where the kept recent turns begin: the earliest assistant message from which the rest fits in `keep_tokens`,
    keeping at least MIN_KEPT_TURNS turns; messages[1:cut] go. None when there is nothing to take out. `forced` (the
    server refused the prompt, whatever the estimate says): at least the first turn goes."""
    starts = [i for i in range(1, len(messages)) if messages[i].role == "assistant"]
    if len(starts) <= MIN_KEPT_TURNS:
        return None
    cut = starts[-MIN_KEPT_TURNS]
    for start in reversed(starts[:-MIN_KEPT_TURNS]):
        if gauge.tokens(len(json.dumps([m.to_dict() for m in messages[start:]]))) > keep_tokens:
            break
        cut = start
    if forced and cut <= 1:
        cut = starts[1]
    return cut if cut > 1 else None


def with_summary(first: Message, summary: str) -> Message:
    """The first message (the task) with `summary` in place of an earlier compaction's."""
    task = [b for b in first.content if not (isinstance(b, TextBlock) and b.text.startswith(SUMMARY_MARK))]
    return Message("user", [*task, TextBlock(summary)])


def summary_text(removed: tuple[int, int], turn: int, history: History, files: dict[str, str],
                 blobs: dict[str, str]) -> str:  # fmt: skip
    """The summary of turns `removed` that the first message carries after a compaction before `turn`."""
    first, last = removed
    lines = [f"{SUMMARY_MARK} before turn {turn}: turns {first}-{last} were taken out of this conversation to keep it "
             "inside the model's context window. The workspace is as you left it. What those turns (and the ones "
             "before them) did:]"]  # fmt: skip
    if history.evals:
        lines += ["", "Evaluations and submissions, in order (turn, by whom, result):"]
        lines += [f"- {line}" for line in history.evals[-60:]]
        if len(history.evals) > 60:
            lines.insert(-60, f"- ({len(history.evals) - 60} earlier ones left out)")
    names = sorted(files) + sorted(f"{path} (binary or large)" for path in blobs)
    lines += ["", "Files in the workspace: " + (", ".join(names) or "none")]
    words = [(t, text) for t, text in sorted(history.words.items()) if first <= t <= last][-8:]
    if words:
        lines += ["", "Your own words in the last of those turns (shortened):"]
        lines += [f"- turn {t}: {_shorten(text, 600)}" for t, text in words]
    for path in ("solution.py", "DESIGN.md"):
        if path in files:
            text = files[path]
            cut = f"\n[... {len(text) - SOLUTION_CHARS} more characters: read_file {path}]" if len(
                text) > SOLUTION_CHARS else ""  # fmt: skip
            lines += ["", f"{path} as it is now:", "```", text[:SOLUTION_CHARS] + cut, "```"]
    return "\n".join(lines)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def eval_line(turn: int, by: str, kind: str, result: dict[str, Any]) -> str:
    """One evaluation or submission, as the summary lists it."""
    verdict = "CORRECT" if result.get("correct") else "NOT CORRECT"
    speedup = result.get("speedup_geomean")
    speed = f", speedup {speedup:.3f}x" if isinstance(speedup, (int, float)) else ""
    failing = [f"{w.get('name')}: {w.get('failure') or 'error'}" for w in result.get("workloads", [])
               if not w.get("correct")][:3]  # fmt: skip
    static = result.get("static") or {}
    if static and not static.get("ok", True):
        failing = [f"static {v.get('rule')} at line {v.get('line')}" for v in static.get("violations", [])[:3]]
    why = f" ({'; '.join(failing)})" if failing else ""
    return f"turn {turn} {kind} by {by}: {verdict}{speed}{why}"
