"""A per-GPU lock, so two evals on one machine never time at the same moment. An OS file lock: a
process that dies releases it, so a crashed eval never leaves the GPU locked."""

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


@contextlib.contextmanager
def gpu_lock(device: torch.device) -> Iterator[None]:
    path = lock_path(device)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
