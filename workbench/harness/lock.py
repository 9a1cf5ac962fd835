"""The GPU lock, so that nothing else an eval does runs while another eval times.

An eval holds the lock shared for its child's whole life (start-up, CUDA initialisation, input
generation, compilation, correctness checks) and exclusively only while it times. So several evals
can check and compile side by side, yet a measurement never overlaps another eval's GPU work, nor
the CPU load of its start-up or compiling (which shows in the launch overhead of short kernels and
of launch-bound references). The parent takes the shared hold before it starts the child and hands
the open lock file down (WORKBENCH_GPU_LOCK_FD): a child that had to take it itself would import
torch and initialise CUDA first, outside the lock. One lock per host, not per GPU, for the same
reason: a start-up on the host slows a measurement on any of its GPUs.
OS file locks: a process that dies releases them, so a crashed eval never leaves the GPU locked.

flock gives no priority to a waiting exclusive request, so a stream of shared holders could starve
a timer. A second file acts as a turnstile: a timer holds it while it waits, and a shared holder
must pass through it first, so once a timer is waiting no new shared holder gets in ahead of it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

LOCK_FD_ENV = "WORKBENCH_GPU_LOCK_FD"


def lock_path() -> Path:
    folder = Path(os.environ.get("WORKBENCH_LOCK_DIR", tempfile.gettempdir()))
    return folder / "workbench-gpu.lock"


class GpuUse:
    """One process's hold on a GPU's lock: shared while it works, exclusive while it times.

    `on_wait(True)` is called before it has to block for the lock and `on_wait(False)` once it has
    it, so that time spent waiting for other evals is not counted against this eval's timeouts."""

    def __init__(
        self, path: Path, on_wait: Callable[[bool], None] = lambda waiting: None, handle: IO[str] | None = None
    ) -> None:
        self.path = path
        self.turnstile = path.with_name(path.name + ".turnstile")
        self.handle = handle or open(path, "a+")  # noqa: SIM115 - held for the life of the process
        self.on_wait = on_wait

    @classmethod
    def inherited(cls, path: Path, on_wait: Callable[[bool], None] = lambda waiting: None) -> GpuUse | None:
        """The hold the parent took shared and handed down, or None when it handed none down."""
        fd = os.environ.get(LOCK_FD_ENV)
        if not fd:
            return None
        return cls(path, on_wait, os.fdopen(int(fd), "a+"))

    def _take(self, mode: int, cancel: threading.Event | None = None) -> None:
        with open(self.turnstile, "a+") as gate:
            waited = not _try(gate, fcntl.LOCK_EX)
            if waited:
                self.on_wait(True)
                _block(gate, fcntl.LOCK_EX, cancel)
            try:
                if not _try(self.handle, mode):
                    if not waited:
                        waited = True
                        self.on_wait(True)
                    _block(self.handle, mode, cancel)
            finally:
                fcntl.flock(gate, fcntl.LOCK_UN)
        if waited:
            self.on_wait(False)

    def share(self, cancel: threading.Event | None = None) -> None:
        """Take the lock shared; with `cancel`, raise Cancelled as soon as it is set while waiting."""
        self._take(fcntl.LOCK_SH, cancel)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Alone on the GPU. flock cannot upgrade in place without deadlocking two upgraders, so the
        shared hold is dropped first and taken again afterwards."""
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self._take(fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.share()


class Cancelled(Exception):
    """The wait for the lock was given up: the eval was cancelled."""


def _block(handle: IO[str], mode: int, cancel: threading.Event | None) -> None:
    """flock until granted; with a cancel event, by polling, so that a cancelled eval stops waiting at once."""
    if cancel is None:
        fcntl.flock(handle, mode)
        return
    while not _try(handle, mode):
        if cancel.wait(0.05):
            raise Cancelled


def _try(handle: IO[str], mode: int) -> bool:
    try:
        fcntl.flock(handle, mode | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
