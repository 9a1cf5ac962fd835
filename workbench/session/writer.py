"""One writer per session: an exclusive lock on the session folder while anything appends to its log.

A loop (run, resume, branch, the app, a bench) or the judge claims the folder before it reads where to go on
from, and holds it until its log is closed; a second claimant is refused with one line naming the holder.
Readers (replay, the app's watch, reports) never take it. The lock is `flock` on `writer.lock` in the folder:
the kernel drops it when the holding process dies however it dies, so a stale lock of a dead process is simply
free again (the holder note it left is overwritten by the next claimant). `flock` is per host: two machines
writing one session over a network file system are not kept apart.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

LOCK_NAME = "writer.lock"


class SessionBusy(ValueError):
    """The session is being written by another process (or another writer of this one): a one-line error."""


class Writer:
    """The claim on one session folder; release() (or the end of the process) gives it up."""

    def __init__(self, folder: Path, handle: Any) -> None:
        self.folder = folder
        self._handle = handle

    @classmethod
    def claim(cls, folder: Path, purpose: str = "") -> Writer:
        """The folder's writer lock, or SessionBusy naming who holds it. Never waits."""
        path = folder / LOCK_NAME
        try:
            handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the writer's life
        except OSError as exc:
            raise SessionBusy(f"{folder.name}: cannot open its writer lock ({exc.strerror or exc})") from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise SessionBusy(f"{folder.name} is being written by {describe(read_holder(path))}") from None
        note = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time(),
                "command": purpose or " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:2])}  # fmt: skip
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(note) + "\n")
            handle.flush()
        except OSError:
            pass  # a read-only or full disk: the lock holds all the same, only the note naming the holder is lost
        return cls(folder, handle)

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing drops the flock; the note stays, naming the last holder
            self._handle = None

    @contextlib.contextmanager
    def released_on_error(self) -> Iterator[Writer]:
        """Keep the claim if the block succeeds (the caller hands it on); give it up if the block fails, so that
        a long-lived process (the app) can try again."""
        try:
            yield self
        except BaseException:
            self.release()
            raise

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_holder(path: Path) -> dict[str, Any] | None:
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return note if isinstance(note, dict) else None


def holder(folder: Path) -> dict[str, Any] | None:
    """Who writes the session now (pid, host, since, command), or None when nobody does."""
    path = folder / LOCK_NAME
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return read_holder(path) or {}
        return None  # free: a note left behind names a writer that has ended


def describe(note: dict[str, Any] | None) -> str:
    if not note:
        return "another process (it left no note saying which)"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(note.get("since", 0))))
    what = f" ({note['command']})" if note.get("command") else ""
    return f"pid {note.get('pid')} on {note.get('host')}{what} since {since}"
