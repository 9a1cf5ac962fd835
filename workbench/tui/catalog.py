"""What the home screen lists: tasks, saved sessions, the best correct speedup per task and condition."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from workbench.session.log import LogError
from workbench.session.service import HUMAN, Session
from workbench.session.specs import find_script
from workbench.tui.timeline import cost_text, ended_with

__all__ = [
    "SessionSummary",
    "available_providers",
    "best_speedups",
    "find_script",
    "find_sessions",
    "hand_over_providers",
    "session_logs",
    "summarize",
]

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
    cost: str  # as the app words it: $x, n/a (no priced model), unknown (a server left usage out)

    @property
    def ended(self) -> bool:
        """Ended for good: replayed, not resumed (an interrupted session can be resumed)."""
        return self.outcome in ("submitted", "budget", "error")

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started))


def condition_of(levels: Iterable[int], provider: str = "") -> str:
    """The condition as the app words it. A person's session is a condition of its own ("human", "human L123"), as
    its folder's name says: its best speedup is never counted as an agent's, guided or not."""
    shown = "L" + "".join(str(level) for level in sorted(levels))
    if provider == HUMAN:
        return f"human {shown}" if shown != "L" else "human"
    return f"guided {shown}" if shown != "L" else "unguided"


def summarize(folder: Path) -> SessionSummary:
    """A session's line on the home screen, from its log alone."""
    record = Session.open(folder)
    start, state = record.start, record.state
    return SessionSummary(
        folder=folder,
        session_id=start.session_id,
        task=start.task,
        condition=condition_of(start.levels, start.provider),
        provider=start.provider,
        model=start.model,
        turns=state.turn,
        outcome=ended_with(record.effective) or UNFINISHED,
        started=float(start.time),
        best_speedup=state.best_speedup,
        correct_submissions=state.correct_submissions,
        cost=cost_text(state),
    )


def find_sessions(root: Path) -> list[SessionSummary]:
    """Every readable session under root (one folder deep, or two: sessions/examples/<id>), newest first."""
    found = []
    for log in sorted(session_logs(root)):
        try:
            found.append(summarize(log.parent))
        except (LogError, OSError):
            continue  # a foreign or broken folder is not a session the app can show
    return sorted(found, key=lambda s: s.started, reverse=True)


def session_logs(root: Path) -> set[Path]:
    """The logs of the sessions under root: one folder deep, or two (sessions/examples/<id>)."""
    if not root.is_dir():
        return set()
    return {*root.glob("*/events.jsonl"), *root.glob("*/*/events.jsonl")}


def best_speedups(sessions: Iterable[SessionSummary]) -> dict[tuple[str, str], float]:
    """The best correct speedup per (task, condition) over the sessions that measured one."""
    best: dict[tuple[str, str], float] = {}
    for s in sessions:
        if s.best_speedup is not None:
            key = (s.task, s.condition)
            best[key] = max(best.get(key, 0.0), s.best_speedup)
    return best


def available_providers(has_script: bool, env: Mapping[str, str] | None = None) -> list[str]:
    """Providers that can start now, the default first: scripted where a script exists, a real one where its key is
    set, and always a person (human mode), first when no key is set."""
    env = os.environ if env is None else env
    keyed = [name for name, key in PROVIDER_KEYS.items() if env.get(key)]
    scripted = ["scripted"] if has_script else []
    return [*scripted, *keyed, HUMAN] if keyed else [HUMAN, *scripted]


def hand_over_providers(has_script: bool) -> list[str]:
    """What a person's session can be handed to: every model provider (one without its key says so when chosen)."""
    return [*(["scripted"] if has_script else []), *PROVIDER_KEYS]
