"""Watches a session's workspace for saves of solution.py made outside the app (an editor, a shell).

watchdog calls from its own thread; the callback given here must be thread-safe (post_message is).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

WATCHED = "solution.py"


class _Handler(FileSystemEventHandler):
    def __init__(self, on_save: Callable[[], None]) -> None:
        self.on_save = on_save

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in ("created", "modified", "moved", "closed"):
            return
        paths = (event.src_path, getattr(event, "dest_path", ""))
        if any(Path(str(p)).name == WATCHED for p in paths if p):
            self.on_save()


def watch_solution(folder: Path, on_save: Callable[[], None]) -> BaseObserver:
    """A started observer that calls on_save (from its thread) whenever solution.py in folder is written.
    Editors that save by writing a new file and renaming it over the old one count too."""
    observer = Observer()
    observer.schedule(_Handler(on_save), str(folder), recursive=False)
    observer.daemon = True
    observer.start()
    return observer
