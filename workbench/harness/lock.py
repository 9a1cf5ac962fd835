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
from collections.abc import Iterator
from pathlib import Path

import torch


def lock_path(device: torch.device) -> Path:
    index = device.index if device.index is not None else torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    ident = str(getattr(props, "uuid", "") or index)
    folder = Path(os.environ.get("WORKBENCH_LOCK_DIR", tempfile.gettempdir()))
    return folder / f"workbench-gpu-{ident}.lock"


class GpuUse:
    """One process's hold on a GPU's lock: shared while it works, exclusive while it times."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.turnstile = path.with_name(path.name + ".turnstile")
        self.handle = open(path, "a+")  # noqa: SIM115 - held for the life of the process

    def _take(self, mode: int) -> None:
        with open(self.turnstile, "a+") as gate:
            fcntl.flock(gate, fcntl.LOCK_EX)
            try:
                fcntl.flock(self.handle, mode)
            finally:
                fcntl.flock(gate, fcntl.LOCK_UN)

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
