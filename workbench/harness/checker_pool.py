"""Checker processes kept warm across the evals of one process (a session's evaluate, submit, evaluate...).

A checker is trusted (it holds no solution code: each eval's solution runs in a worker of its own), so one can serve
eval after eval: torch imported once, the task's inputs and reference loaded once. An eval takes an idle checker of
its mode and environment, or starts one (so evals of several threads run side by side); all end with this process.
Results arrive on a pipe made here and passed to the checker alone.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any


class CheckerLost(RuntimeError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Checker:
    def __init__(self, env: dict[str, str]) -> None:
        read_fd, write_fd = os.pipe()
        self.log = tempfile.TemporaryFile(mode="w+b")  # noqa: SIM115 - the checker's own output, for errors
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "workbench.harness.checker", str(write_fd)],
            stdin=subprocess.PIPE, stdout=self.log, stderr=subprocess.STDOUT, env=env, pass_fds=(write_fd,),
            start_new_session=True,
        )  # fmt: skip
        os.close(write_fd)
        self.results = os.fdopen(read_fd, "rb", buffering=0)
        self.buffer = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(
        self, spec_line: str, silence_s: float, cancel: threading.Event | None, paused_by: tuple[str, str]
    ) -> Iterator[dict[str, Any]]:
        """Send one spec and yield the checker's events until it says done. Raises CheckerLost when it dies, is
        cancelled, or says nothing for `silence_s` (not counting time it reports waiting for the GPU lock)."""
        assert self.proc.stdin is not None  # one eval at a time: acquire() hands a checker to one caller
        try:
            self.proc.stdin.write(spec_line.encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise self._lost() from None
        last, waiting = time.monotonic(), False
        while True:
            if cancel is not None and cancel.is_set():
                self.kill()
                raise CheckerLost("interrupted: the eval was cancelled")
            if not waiting and time.monotonic() - last > silence_s:
                self.kill()
                raise CheckerLost(f"the checker said nothing for {silence_s:g} s (killed)")
            ready, _, _ = select.select([self.results], [], [], 0.05)
            if not ready:
                continue
            chunk = self.results.read(1 << 16)
            if not chunk:
                raise self._lost()
            self.buffer += chunk
            last = time.monotonic()
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                event = json.loads(line)
                if event.get("event") == "done":
                    return
                if event.get("event") in paused_by:
                    waiting = event["event"] == paused_by[0]
                    continue
                yield event

    def _lost(self) -> CheckerLost:
        self.kill()
        self.log.seek(0)
        tail = self.log.read().decode(errors="replace").strip().splitlines()[-6:]
        return CheckerLost(f"the checker exited with status {self.proc.returncode}: {' | '.join(tail)[-1500:]}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None and self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


# Each idle checker holds torch, a task's inputs and a prestarted worker (some hundreds of MB): a process that evals
# under many environments (task folders, caches) keeps only the most recently used few and closes the rest.
MAX_IDLE = 2
IDLE_S = 600.0  # an idle checker older than this is closed at the next acquire

_IDLE: list[tuple[str, float, Checker]] = []  # (key, when it went idle, checker), oldest first
_ALL: list[Checker] = []
_POOL_LOCK = threading.Lock()


def _close_later(checkers: list[Checker]) -> None:
    """Closing waits for the checker to end (up to 10 s): never on the eval's path."""
    for checker in checkers:
        threading.Thread(target=checker.close, name="checker-close", daemon=True).start()


def _take(key: str) -> Checker | None:
    """The newest live idle checker for `key`; drops dead ones and closes those idle too long."""
    now = time.monotonic()
    chosen: Checker | None = None
    stale: list[Checker] = []
    with _POOL_LOCK:
        kept: list[tuple[str, float, Checker]] = []
        for entry in reversed(_IDLE):
            entry_key, since, checker = entry
            if not checker.alive():
                continue
            if now - since > IDLE_S:
                stale.append(checker)
            elif chosen is None and entry_key == key:
                chosen = checker
            else:
                kept.append(entry)
        _IDLE[:] = reversed(kept)
        _ALL[:] = [c for c in _ALL if c.alive() and c not in stale]
    _close_later(stale)
    return chosen


def _give_back(key: str, checker: Checker) -> None:
    with _POOL_LOCK:
        _IDLE.append((key, time.monotonic(), checker))
        evicted = [c for _, _, c in _IDLE[: max(0, len(_IDLE) - MAX_IDLE)]]
        del _IDLE[: len(evicted)]
        _ALL[:] = [c for c in _ALL if c not in evicted]
    _close_later(evicted)


def idle_count() -> int:
    with _POOL_LOCK:
        return sum(1 for _, _, c in _IDLE if c.alive())


@contextlib.contextmanager
def acquire(mode: str, env: dict[str, str]) -> Iterator[Checker]:
    """An idle warm checker for this mode and environment, or a new one; back to the pool afterwards if alive and the
    caller's work with it ended normally (otherwise it is killed)."""
    key = mode + hashlib.sha256(json.dumps(sorted(env.items())).encode()).hexdigest()
    checker = _take(key)
    if checker is None:
        checker = Checker(env)
        with _POOL_LOCK:
            _ALL.append(checker)
    try:
        yield checker
    except BaseException:
        # interrupted mid-eval (a test's timeout, KeyboardInterrupt, an error reading its events): the checker may
        # still be in that eval, and the next caller would read this eval's events as its own
        checker.kill()
        raise
    if checker.alive():
        _give_back(key, checker)


@atexit.register
def _close_all() -> None:
    with _POOL_LOCK:
        everyone = list(_ALL)
    for checker in everyone:
        checker.close()
