"""What a bench has spent: each session's cost from its log, then as its turns end, against the session and bench caps.

A cost the bench cannot know (a model without a price, a server that reported no usage) is unknown, never $0: the
known part is summed and the unknown sessions are counted beside it. Sessions that the bench's cap stopped are
listed in `BENCH_DIR/stopped.jsonl` (one line each time), so the report and a later run can say why they are unfinished.
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.session.history import add_discarded_spend, rebuild
from workbench.session.log import LogError
from workbench.session.service import Session

STOPPED_FILE = "stopped.jsonl"


@dataclass(frozen=True)
class LoggedSpend:
    """A session's spend as its log holds it, the responses of turns discarded on a resume included (paid for)."""

    cost: float | None  # USD; None: unknown
    turns: int  # complete turns


def logged_spend(key_dir: Path) -> LoggedSpend | None:
    """The spend of a planned session's folder; None when it has no readable log (never started)."""
    for events in sorted(key_dir.glob("*/events.jsonl")) if key_dir.is_dir() else []:
        try:
            opened = Session.open(events.parent)
        except LogError:
            continue
        state = add_discarded_spend(rebuild(opened.effective), opened.events, opened.effective)
        return LoggedSpend(state.known_cost, state.turn)
    return None


def check_cap(value: float | None, option: str) -> float | None:
    """A cap as given on the command line: a positive, finite number of USD, or none."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ValueError(f"{option} must be a positive number of USD, not {value:g}")
    return value


def usd(value: float) -> str:
    return f"${value:,.2f}"


class Spend:
    """Thread-safe: each session's latest known cost (its whole cost so far, earlier runs included) and the sessions
    whose cost is unknown, against an optional bench cap and the plan's session cap."""

    def __init__(self, before: dict[str, LoggedSpend], bench_cap: float | None = None,
                 session_cap: float | None = None) -> None:  # fmt: skip
        self.bench_cap, self.session_cap = bench_cap, session_cap
        self._costs = {key: s.cost for key, s in before.items() if s.cost is not None}
        self._unknown = {key for key, s in before.items() if s.cost is None and s.turns > 0}
        self._lock = threading.Lock()

    def seen(self, key: str, cost: float | None) -> None:
        """A session's cost so far, as its loop reported it at the end of a turn (None: unknown)."""
        with self._lock:
            if cost is None:
                self._unknown.add(key)
            else:
                self._costs[key] = cost
                self._unknown.discard(key)

    @property
    def total(self) -> float:
        """The known spend of the whole bench."""
        with self._lock:
            return sum(self._costs.values())

    @property
    def reached(self) -> bool:
        """The bench's cap is spent: start nothing more, stop what runs."""
        return self.bench_cap is not None and self.total >= self.bench_cap

    def words(self) -> str:
        """The spend against both caps, for the progress line."""
        with self._lock:
            total, unknown = sum(self._costs.values()), len(self._unknown)
            costliest = max(self._costs.values(), default=None)
        if not self._costs and unknown:
            spent = f"cost unknown ({unknown} sessions without a price or usage)"
        else:
            spent = f"{usd(total)} spent" + (f" + unknown ({unknown} sessions)" if unknown else "")
        if self.bench_cap is not None:
            spent += f" of the {usd(self.bench_cap)} bench cap"
        if self.session_cap is not None:
            most = usd(costliest) if costliest is not None else "unknown"
            spent += f", costliest session {most} of the {usd(self.session_cap)} session cap"
        return spent


def record_stop(bench_dir: Path, key: str, cap: float, spent: float) -> None:
    """A session the bench's cap stopped (it ended `interrupted`: resumable, neither done nor failed)."""
    line = {"time": time.time(), "key": key, "bench_cap_usd": cap, "bench_spent_usd": round(spent, 6)}
    with open(bench_dir / STOPPED_FILE, "a") as out:
        out.write(json.dumps(line) + "\n")


def stopped_by_cap(bench_dir: Path) -> dict[str, float]:
    """The sessions the bench's cap ever stopped, with the cap that stopped each last."""
    path = bench_dir / STOPPED_FILE
    stops: dict[str, float] = {}
    for line in path.read_text().splitlines() if path.is_file() else []:
        try:
            entry = json.loads(line)
            stops[str(entry["key"])] = float(entry["bench_cap_usd"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # a line torn by a kill
    return stops
