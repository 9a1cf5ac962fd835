"""A session's progress folded from its log: what the timing panel and the editor show at a turn.

Live sessions fold each event as it arrives; replay folds the events up to the cursor's turn. Pure
data, no textual: the same fold serves both and is tested without an app.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.agent.conversation import Usage
from workbench.session.log import Event


@dataclass
class Progress:
    budget: int = 0
    turn: int = 0  # complete turns
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None  # None while no response had a price
    unmetered: int = 0  # responses whose server reported no usage: the cost is unknown, not that low
    last_eval: dict[str, Any] | None = None  # the last eval_result or submission event
    best_speedup: float | None = None
    files: dict[str, str] = field(default_factory=dict)
    end_reason: str | None = None

    @property
    def cache_hit_rate(self) -> float | None:
        prompt = self.usage.prompt_tokens
        return self.usage.cache_read_tokens / prompt if prompt else None

    @property
    def solution(self) -> str:
        return self.files.get("solution.py", "")

    def apply(self, event: Event) -> None:
        kind = event["kind"]
        if kind == "session_start":
            self.budget = int(event.get("budget", 0))
        elif kind == "files":
            self.files.update(event["changed"])
            for path in event["deleted"]:
                self.files.pop(path, None)
        elif kind == "model_response":
            self.usage.add(Usage(**event["usage"]))
            if event.get("cost") is not None:
                self.cost = (self.cost or 0.0) + float(event["cost"])
            self.unmetered += int(event.get("usage_reported") is False)
        elif kind == "turn_end":
            self.turn = event["turn"]
        elif kind in ("eval_result", "submission"):
            self.last_eval = event
            result = event["result"]
            speedup = result.get("speedup_geomean")
            if result.get("correct") and isinstance(speedup, (int, float)):
                self.best_speedup = max(self.best_speedup or 0.0, float(speedup))
        elif kind == "session_end":
            self.end_reason = event["reason"]


def cost_text(progress: Progress) -> str:
    """The session's cost as the app shows it: unknown (not $0) when a server left usage out."""
    if progress.unmetered:
        return "unknown"
    return f"${progress.cost:.4f}" if progress.cost is not None else "n/a"


def fold(events: list[Event]) -> Progress:
    progress = Progress()
    for event in events:
        progress.apply(event)
    return progress


def last_turn(events: list[Event]) -> int:
    """The highest turn any event names (a turn cut short counts: replay shows what happened)."""
    return max((int(e["turn"]) for e in events), default=0)


def up_to_turn(events: list[Event], turn: int) -> list[Event]:
    """The events of turns 0..turn, with what a person did before the next turn began."""
    return [e for e in events if e["turn"] <= turn]
