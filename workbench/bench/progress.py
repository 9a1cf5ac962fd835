"""The bench's progress display: one line each time the counts change (done, running, failed, time, cost)."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from workbench.session.events import Event, SessionEnd, TurnEnd


class Progress:
    """Thread-safe counters of a bench run. `failed` counts sessions that ended in an error or whose
    set-up raised; a session that ends without a correct kernel is done, not failed."""

    def __init__(self, total: int, already_done: int = 0, out: TextIO | None = None) -> None:
        self.total, self.done, self.running, self.failed = total, already_done, 0, 0
        self.out = out if out is not None else sys.stderr
        self._costs: dict[str, float] = {}
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._last: tuple[int, int, int, float] | None = None

    def started(self, key: str) -> None:
        with self._lock:
            self.running += 1
            self._show()

    def ended(self, key: str, reason: str | None) -> None:
        """A session's loop ended; one stopped by the bench (`interrupted`) is left for a rerun, not done."""
        with self._lock:
            self.running -= 1
            if reason != "interrupted":
                self.done += 1
                self.failed += int(reason == "error")
            self._show()

    def crashed(self, key: str) -> None:
        """The session could not run at all (it stays unfinished, so a rerun tries it again)."""
        with self._lock:
            self.running -= 1
            self.failed += 1
            self._show()

    def watch(self, key: str) -> LoopWatcher:
        return LoopWatcher(self, key)

    def cost_seen(self, key: str, cost: float | None) -> None:
        if cost is None:
            return
        with self._lock:
            self._costs[key] = cost
            self._show()

    def line(self) -> str:
        elapsed = int(time.monotonic() - self._started)
        cost = f"${sum(self._costs.values()):.2f}" if self._costs else "cost n/a"
        return (f"bench: {self.done}/{self.total} done, {self.running} running, {self.failed} failed, "
                f"{elapsed // 60:02d}:{elapsed % 60:02d} elapsed, {cost} so far")  # fmt: skip

    def _show(self) -> None:
        counts = (self.done, self.running, self.failed, round(sum(self._costs.values()), 2))
        if counts != self._last:  # a line per change of the counts or the cost, not per tick of the clock
            self._last = counts
            print(self.line(), file=self.out, flush=True)


class LoopWatcher:
    """The loop's on_event: follows the session's running cost without printing its turns."""

    def __init__(self, progress: Progress, key: str) -> None:
        self.progress, self.key = progress, key

    def __call__(self, event: Event) -> None:
        if isinstance(event, (TurnEnd, SessionEnd)):
            self.progress.cost_seen(self.key, event.cost)
