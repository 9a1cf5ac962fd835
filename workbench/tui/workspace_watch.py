"""Watches a session's workspace for saves of solution.py made outside the app (an editor, a shell).

watchdog calls from its own thread; the callback given here must be thread-safe (post_message is).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

WATCHED = "solution.py"


QUIET_S = 0.2  # a write seen without its close counts once the file has been left alone this long


class _Handler(FileSystemEventHandler):
    """A save is reported once the file is whole: at its close or rename, or after QUIET_S without another event.
    Reporting each "modified" would record the empty file a truncate-then-write save passes through as an edit."""

    def __init__(self, on_save: Callable[[], None]) -> None:
        self.on_save = on_save
        self._lock = threading.Lock()
        self._pending: threading.Timer | None = None

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in ("created", "modified", "moved", "closed"):
            return
        paths = (event.src_path, getattr(event, "dest_path", ""))
        if not any(Path(str(p)).name == WATCHED for p in paths if p):
            return
        with self._lock:
            if self._pending is not None:
                self._pending.cancel()
                self._pending = None
            if event.event_type in ("closed", "moved"):
                complete = True
            else:
                complete = False
                self._pending = threading.Timer(QUIET_S, self._quiet)
                self._pending.daemon = True
                self._pending.start()
        if complete:
            self.on_save()

    def _quiet(self) -> None:
        with self._lock:
            self._pending = None
        self.on_save()


def watch_solution(folder: Path, on_save: Callable[[], None]) -> BaseObserver:
    """A started observer that calls on_save (from its thread) whenever solution.py in folder is written.
    Editors that save by writing a new file and renaming it over the old one count too."""
    observer = Observer()
    observer.schedule(_Handler(on_save), str(folder), recursive=False)
    observer.daemon = True
    observer.start()
    return observer
