"""Folders in /tmp that name the process that made them, so that what a killed process left is removed later.

An eval's folder, a worker's home and a zygote's home are removed when their eval or checker ends; a process killed
first (an interrupted eval, a session process killed, a test run cut off) never gets to, and each such folder stayed
for good. Each now holds its maker's pid and start time, and the first folder of a kind a process makes removes the
ones of that kind whose maker is gone. The owner's line sits at the folder's root, which no worker mounts.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

OWNER_FILE = "owner"
# a folder without its owner's line is being made now, or is an older version's: left this long
UNOWNED_GRACE_S = 3600.0

_swept: set[str] = set()
_lock = threading.Lock()


def started(pid: int) -> str | None:
    """When a process started (clock ticks since boot, /proc/PID/stat field 22): a pid is reused, a start is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def owned_dir(prefix: str) -> Path:
    """A new folder in the temporary directory that names this process; the first of its kind in this process
    removes the stale ones first."""
    with _lock:
        first = prefix not in _swept
        _swept.add(prefix)
    if first:
        remove_stale(prefix)
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    (folder / OWNER_FILE).write_text(f"{os.getpid()} {started(os.getpid())}")
    return folder


def remove_stale(prefix: str, tmp: Path | None = None) -> list[Path]:
    """Remove this user's folders of the kind whose maker is gone (and unnamed ones older than an hour)."""
    removed = []
    for folder in Path(tmp or tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            if not folder.is_dir() or folder.stat().st_uid != os.getuid():
                continue  # another user's
            owner = (folder / OWNER_FILE).read_text().split()
        except FileNotFoundError:
            try:
                if time.time() - folder.stat().st_mtime < UNOWNED_GRACE_S:
                    continue
            except OSError:
                continue
            owner = []
        except OSError:
            continue
        if len(owner) == 2 and owner[0].isdigit() and started(int(owner[0])) == owner[1]:
            continue  # its maker is alive
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed
