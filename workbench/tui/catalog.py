"""What the home screen lists: tasks, saved sessions, the best correct speedup per task and condition."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from workbench.session.log import LogError
from workbench.session.service import Session
from workbench.session.specs import find_script

__all__ = ["SessionSummary", "available_providers", "best_speedups", "find_script", "find_sessions", "summarize"]

BUILTIN_SCRIPTS = Path(__file__).resolve().parent.parent / "agent" / "scripts"
PROVIDER_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
UNFINISHED = "unfinished"  # the outcome of a session whose log has no session_end (killed, or still running)


@dataclass(frozen=True)
class SessionSummary:
    folder: Path
    session_id: str
    task: str
    condition: str
    provider: str
    model: str
    turns: int
    outcome: str  # submitted / budget / error / interrupted / unfinished
    started: float
    best_speedup: float | None
    correct_submissions: int

    @property
    def ended(self) -> bool:
        """Ended for good: replayed, not resumed (an interrupted session can be resumed)."""
        return self.outcome in ("submitted", "budget", "error")

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started))


def condition_of(levels: Iterable[int]) -> str:
    chosen = sorted(levels)
    return "guided L" + "".join(str(level) for level in chosen) if chosen else "unguided"


def summarize(folder: Path) -> SessionSummary:
    """A session's line on the home screen, from its log alone."""
    record = Session.open(folder)
    start, state = record.start, record.state
    return SessionSummary(
        folder=folder,
        session_id=start.session_id,
        task=start.task,
        condition=condition_of(start.levels),
        provider=start.provider,
        model=start.model,
        turns=state.turn,
        outcome=state.end_reason or UNFINISHED,
        started=float(start.time),
        best_speedup=state.best_speedup,
        correct_submissions=state.correct_submissions,
    )


def find_sessions(root: Path) -> list[SessionSummary]:
    """Every readable session under root (one folder deep, or two: sessions/examples/<id>), newest first."""
    if not root.is_dir():
        return []
    logs = sorted({*root.glob("*/events.jsonl"), *root.glob("*/*/events.jsonl")})
    found = []
    for log in logs:
        try:
            found.append(summarize(log.parent))
        except (LogError, OSError):
            continue  # a foreign or broken folder is not a session the app can show
    return sorted(found, key=lambda s: s.started, reverse=True)


def best_speedups(sessions: Iterable[SessionSummary]) -> dict[tuple[str, str], float]:
    """The best correct speedup per (task, condition) over the sessions that measured one."""
    best: dict[tuple[str, str], float] = {}
    for s in sessions:
        if s.best_speedup is not None:
            key = (s.task, s.condition)
            best[key] = max(best.get(key, 0.0), s.best_speedup)
    return best


def available_providers(has_script: bool, env: Mapping[str, str] | None = None) -> list[str]:
    """Providers that can start now: scripted where a script exists, a real one where its key is set."""
    env = os.environ if env is None else env
    names = ["scripted"] if has_script else []
    return names + [name for name, key in PROVIDER_KEYS.items() if env.get(key)]
