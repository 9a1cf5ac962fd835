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


_IDLE: dict[str, list[Checker]] = {}
_ALL: list[Checker] = []
_POOL_LOCK = threading.Lock()


@contextlib.contextmanager
def acquire(mode: str, env: dict[str, str]) -> Iterator[Checker]:
    """An idle warm checker for this mode and environment, or a new one; back to the pool afterwards if alive."""
    key = mode + hashlib.sha256(json.dumps(sorted(env.items())).encode()).hexdigest()
    with _POOL_LOCK:
        idle = [c for c in _IDLE.get(key, []) if c.alive()]
        checker = idle.pop() if idle else None
        _IDLE[key] = idle
    if checker is None:
        checker = Checker(env)
        with _POOL_LOCK:
            _ALL.append(checker)
    try:
        yield checker
    finally:
        if checker.alive():
            with _POOL_LOCK:
                _IDLE.setdefault(key, []).append(checker)


@atexit.register
def _close_all() -> None:
    for checker in list(_ALL):
        checker.close()
