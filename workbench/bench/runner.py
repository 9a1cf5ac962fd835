"""Running a bench on this machine: K sessions at once in threads, skipping the finished ones.

Each session's loop runs in its own worker thread and its evals in child processes; on a GPU the
harness's per-GPU lock keeps two evals from timing at the same moment, so K sessions may share a GPU.
Ctrl-C or SIGTERM stops every running session cleanly (`interrupted`, resumable) and starts no more; so does the
bench's cost cap once its spend reaches it, the sessions it stopped recorded as such (`spend.py`).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.bench.plan import BenchPlan, SessionSpec
from workbench.bench.progress import Progress
from workbench.bench.sessions import SessionOutcome, open_session, outcome, session_status
from workbench.bench.spend import record_stop
from workbench.harness.sandbox import Confinement
from workbench.session.loop import AgentLoop, LoopCallbacks


@dataclass
class BenchResult:
    """What one run of the bench did: sessions run now, those already finished, those that crashed."""

    outcomes: list[SessionOutcome] = field(default_factory=list)
    already_finished: int = 0
    crashed: dict[str, str] = field(default_factory=dict)  # key -> error
    stopped: bool = False  # interrupted by Ctrl-C / SIGTERM / stop(), or by the bench's cost cap
    capped: list[str] = field(default_factory=list)  # sessions the bench's cost cap stopped while they ran
    cap_reached: bool = False

    @property
    def complete(self) -> bool:
        return not self.stopped and not self.crashed and all(o.reason != "interrupted" for o in self.outcomes)


def pending_sessions(plan: BenchPlan, bench_dir: Path) -> tuple[list[SessionSpec], int]:
    """The plan's sessions not finished yet, and how many are."""
    pending = [s for s in plan.sessions() if session_status(bench_dir / "sessions" / s.key).state != "finished"]
    return pending, len(plan.sessions()) - len(pending)


CONFINEMENT_FILE = "confinement.jsonl"


def record_confinement(bench_dir: Path, state: Confinement) -> None:
    """One line per run of the bench (a resumed bench may run on another machine): confined or not, and why."""
    line = {"time": time.time(), "confined": state.works, "mechanism": state.mechanism, "reason": state.reason}
    with open(bench_dir / CONFINEMENT_FILE, "a") as out:
        out.write(json.dumps(line) + "\n")


class LocalRunner:
    def __init__(self, plan: BenchPlan, bench_dir: Path, parallel: int = 1, progress: Progress | None = None) -> None:
        self.plan, self.bench_dir, self.parallel = plan, bench_dir, max(1, parallel)
        self.progress = progress
        self._live: dict[str, AgentLoop] = {}
        self._lock = threading.Lock()
        self._stopping = False
        self._cap_reached = False

    def stop(self) -> None:
        """Stop every running session (they end `interrupted`, resumable) and start no more."""
        with self._lock:
            self._stopping = True
            loops = list(self._live.values())
        for loop in loops:
            loop.stop()

    def run(self) -> BenchResult:
        pending, finished = pending_sessions(self.plan, self.bench_dir)
        result = BenchResult(already_finished=finished)
        progress = self.progress or Progress(len(self.plan.sessions()), finished)
        self._check_cap(progress)  # spent before this run: start nothing
        with ThreadPoolExecutor(self.parallel, thread_name_prefix="bench") as pool:
            futures: dict[Future[SessionOutcome | None], str] = {
                pool.submit(self._one, spec, progress): spec.key for spec in pending
            }
            remaining = set(futures)
            while remaining:
                self._check_cap(progress)
                done, remaining = wait(remaining, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    self._collect(future, futures[future], result)
        result.stopped, result.cap_reached = self._stopping, self._cap_reached
        result.capped = [o.key for o in result.outcomes if o.reason == "interrupted" and self._cap_reached]
        return result

    def _check_cap(self, progress: Progress) -> None:
        """The bench's cost cap, checked here (the main thread) rather than in a loop's callback, which runs on that
        loop's thread while the others may hold their own locks."""
        if progress.spend.reached and not self._cap_reached:
            self._cap_reached = True
            self.stop()

    def _collect(self, future: Future[SessionOutcome | None], key: str, result: BenchResult) -> None:
        error = future.exception()
        if error is not None:
            result.crashed[key] = f"{type(error).__name__}: {error}"
            return
        outcome = future.result()
        if outcome is not None:
            result.outcomes.append(outcome)

    def _one(self, spec: SessionSpec, progress: Progress) -> SessionOutcome | None:
        if self._stopping:
            return None
        progress.started(spec.key)
        try:
            session = open_session(self.plan, spec, self.bench_dir / "sessions" / spec.key)
        except Exception:  # the worker's boundary: the bench goes on, the session stays unfinished
            progress.crashed(spec.key)
            raise
        with self._lock:
            if self._stopping:
                session.close()
                progress.ended(spec.key, "interrupted")
                return None
            loop = self._live[spec.key] = session.start(LoopCallbacks(on_event=progress.watch(spec.key)))
        try:
            reason = loop.wait()
        finally:
            session.close()
            with self._lock:
                self._live.pop(spec.key, None)
        progress.ended(spec.key, reason)
        if reason == "interrupted" and self._cap_reached:
            cap = progress.spend.bench_cap
            assert cap is not None
            record_stop(self.bench_dir, spec.key, cap, progress.spend.total)
            progress.stopped_by_cap(spec.key)
        return outcome(spec.key, session, reason)


@contextmanager
def stop_on_signals(stop: Any) -> Iterator[None]:
    """In the main thread, turn SIGINT and SIGTERM into `stop()` for the duration."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda signum, frame: stop())
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
