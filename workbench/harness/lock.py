"""Per-GPU locks, so that nothing else an eval does runs while another eval times on that GPU.

An eval's child holds its GPU's lock shared for its whole life (imports, input generation,
compilation, correctness checks) and exclusively only while it times. So several evals can
check and compile side by side, yet a measurement never overlaps another eval's GPU work, nor the
CPU load of its compiling (which shows in the launch overhead of short kernels).
OS file locks: a process that dies releases them, so a crashed eval never leaves the GPU locked.

flock gives no priority to a waiting exclusive request, so a stream of shared holders could starve
a timer. A second file acts as a turnstile: a timer holds it while it waits, and a shared holder
must pass through it first, so once a timer is waiting no new shared holder gets in ahead of it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import torch


def lock_path(device: torch.device) -> Path:
    index = device.index if device.index is not None else torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    ident = str(getattr(props, "uuid", "") or index)
    folder = Path(os.environ.get("WORKBENCH_LOCK_DIR", tempfile.gettempdir()))
    return folder / f"workbench-gpu-{ident}.lock"


class GpuUse:
    """One process's hold on a GPU's lock: shared while it works, exclusive while it times.

    `on_wait(True)` is called before it has to block for the lock and `on_wait(False)` once it has
    it, so that time spent waiting for other evals is not counted against this eval's timeouts."""

    def __init__(self, path: Path, on_wait: Callable[[bool], None] = lambda waiting: None) -> None:
        self.path = path
        self.turnstile = path.with_name(path.name + ".turnstile")
        self.handle = open(path, "a+")  # noqa: SIM115 - held for the life of the process
        self.on_wait = on_wait

    def _take(self, mode: int) -> None:
        with open(self.turnstile, "a+") as gate:
            waited = not _try(gate, fcntl.LOCK_EX)
            if waited:
                self.on_wait(True)
                fcntl.flock(gate, fcntl.LOCK_EX)
            try:
                if not _try(self.handle, mode):
                    if not waited:
                        waited = True
                        self.on_wait(True)
                    fcntl.flock(self.handle, mode)
            finally:
                fcntl.flock(gate, fcntl.LOCK_UN)
        if waited:
            self.on_wait(False)

    def share(self) -> None:
        self._take(fcntl.LOCK_SH)

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


def _try(handle: IO[str], mode: int) -> bool:
    try:
        fcntl.flock(handle, mode | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
