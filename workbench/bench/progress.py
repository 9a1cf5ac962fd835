"""The bench's progress display: one line each time the counts change (done, running, failed, stopped by the cost
cap, time, and the spend against the caps)."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from workbench.bench.spend import Spend
from workbench.session.events import Event, SessionEnd, TurnEnd


class Progress:
    """Thread-safe counters of a bench run. `failed` counts sessions that ended in an error or whose
    set-up raised; a session that ends without a correct kernel is done, not failed; one the bench's cost cap stopped
    is neither (`capped`)."""

    def __init__(self, total: int, already_done: int = 0, out: TextIO | None = None,
                 spend: Spend | None = None) -> None:  # fmt: skip
        self.total, self.done, self.running, self.failed, self.capped = total, already_done, 0, 0, 0
        self.out = out if out is not None else sys.stderr
        self.spend = spend if spend is not None else Spend({})
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._last: tuple[int, int, int, int, str] | None = None

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

    def stopped_by_cap(self, key: str) -> None:
        """A session the bench's cost cap stopped, after its `ended` (resumable: neither done nor failed)."""
        with self._lock:
            self.capped += 1
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
        """A session's whole cost so far (None: unknown)."""
        self.spend.seen(key, cost)
        with self._lock:
            self._show()

    def line(self) -> str:
        elapsed = int(time.monotonic() - self._started)
        capped = f", {self.capped} stopped by the cost cap" if self.capped else ""
        return (f"bench: {self.done}/{self.total} done, {self.running} running, {self.failed} failed{capped}, "
                f"{elapsed // 60:02d}:{elapsed % 60:02d} elapsed, {self.spend.words()}")  # fmt: skip

    def _show(self) -> None:
        counts = (self.done, self.running, self.failed, self.capped, self.spend.words())
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
