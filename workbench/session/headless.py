"""Running a session without the UI: one line per turn on stdout, Ctrl-C ends it cleanly."""

from __future__ import annotations

import signal
import sys
from typing import Any, TextIO

from workbench.session.events import (
    Error,
    EvalResult,
    Event,
    Interrupt,
    ModelRequest,
    ModelResponse,
    ModelRetry,
    SessionEnd,
    Submission,
    TurnEnd,
)
from workbench.session.loop import AgentLoop

THINKING_SHOWN = 160  # characters of a turn's thinking on its line


def reasoning_words(thinking: int | None, effort: str | None) -> str:
    """How much a session's model reasons, as its settings are shown: "" when it is left to the model."""
    if thinking:
        return f"thinking {thinking:,} tokens"
    if effort:
        return f"reasoning effort {effort}"
    return ""


def thinking_text(content: list[dict[str, Any]]) -> str | None:
    """A response's thinking, apart from its reply: None when it had none; redacted thinking said as such."""
    parts = [b.get("thinking", "") if b["type"] == "thinking" else "(redacted)" for b in content
             if b["type"] in ("thinking", "redacted_thinking")]  # fmt: skip
    return " ".join(" ".join(parts).split()) if parts else None


class TurnPrinter:
    """Turns the loop's events into one line per turn: turn, tools, eval outcome, best speedup,
    tokens, cost."""

    def __init__(self, budget: int, out: TextIO | None = None) -> None:
        self.budget, self._out = budget, out  # None: sys.stdout as it is when a line is printed
        self._outcome = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, ModelResponse):
            thought = thinking_text(event.content)
            if thought is not None:
                shown = thought if len(thought) <= THINKING_SHOWN else thought[: THINKING_SHOWN - 3] + "..."
                self._line(f"          thinking: {shown}")
        elif isinstance(event, ModelRequest) and event.thinking_note:
            self._line(f"          {event.thinking_note}")
        elif isinstance(event, (EvalResult, Submission)):
            self._outcome = ("submitted: " if isinstance(event, Submission) else "") + _verdict(event.result)
        elif isinstance(event, Interrupt):
            self._line(f"turn {event.turn:>3}/{self.budget}  interrupted during the {event.during}")
        elif isinstance(event, ModelRetry):
            self._line(f"          retry {event.attempt} in {event.delay_s:.1f} s: {event.reason}")
        elif isinstance(event, Error):
            self._line(f"          error: {event.message}")
        elif isinstance(event, TurnEnd):
            usage = event.usage
            tools = ",".join(event.tools) or "(no tool)"
            best = f"{event.best_speedup:.2f}x" if event.best_speedup else "-"
            tokens = (f"{usage['input_tokens'] + usage['cache_read_tokens'] + usage['cache_write_tokens']:,} in "
                      f"({usage['cache_read_tokens']:,} cached) / {usage['output_tokens']:,} out")  # fmt: skip
            self._line(f"turn {event.turn:>3}/{self.budget}  {tools:22} {self._outcome or '-':28} best {best:8} "
                       f"{tokens}  {_usd(event.cost, event.unmetered)}")  # fmt: skip
            self._outcome = ""
        elif isinstance(event, SessionEnd):
            best = f"{event.best_speedup:.2f}x" if event.best_speedup else "none"
            cost = _usd(event.cost, event.unmetered)
            self._line(f"session ended: {event.reason} after {event.turns} turns; best correct speedup {best}; "
                       f"{event.submissions} submissions; {cost}")  # fmt: skip

    def _line(self, text: str) -> None:
        print(text, file=self._out or sys.stdout, flush=True)


def _usd(cost: float | None, unmetered: int = 0) -> str:
    if unmetered:  # the server left usage out: a total would read low
        return f"cost unknown ({unmetered} response{'s' if unmetered > 1 else ''} without usage)"
    return f"${cost:.2f}" if cost is not None else "cost n/a"


def _verdict(result: dict[str, Any]) -> str:
    if not result["static"]["ok"]:
        return f"static: {result['static']['violations'][0]['rule']}"
    if result.get("error"):
        return "error"
    if result["correct"]:
        speedup = result.get("speedup_geomean")
        return f"correct {speedup:.2f}x" if isinstance(speedup, (int, float)) else "correct (untimed)"
    failures = sorted({w.get("failure") or "error" for w in result["workloads"] if not w["correct"]})
    return "incorrect: " + ",".join(failures)


def run_headless(loop: AgentLoop) -> str:
    """Run to the end; SIGINT or SIGTERM stops the session cleanly (reason: interrupted)."""
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def stop(signum: int, frame: Any) -> None:
        loop.stop()

    for sig in previous:
        signal.signal(sig, stop)
    try:
        loop.start()
        while True:
            reason = loop.wait(timeout=0.2)
            if reason is not None:
                return reason
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
