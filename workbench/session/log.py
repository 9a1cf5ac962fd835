"""The session log: `events.jsonl`, one event a line, appended, flushed and fsynced per event.

This module is the log's file: appending, and reading back with what a kill leaves behind. What a line holds is
`workbench/session/events.py`'s, the one place that turns events into JSON and back. The first event is
`session_start`, with the schema `version`. A reader tolerates a truncated last line (a kill mid-write) and
reports it; it refuses a log written by a newer schema, and a line that is not an event of this schema.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from workbench.session.events import (
    Event,
    EventBase,
    LogError,
    SessionStart,
    check_version,
    event_from_dict,
    event_to_dict,
)
from workbench.session.writer import Writer

__all__ = ["LogContents", "LogError", "SessionLog", "read_log"]  # LogError is raised here and by events.py

E = TypeVar("E", bound=EventBase)


class SessionLog:
    """Appends events durably. Thread-safe: the loop's worker and a UI thread may both write. It holds the
    session's writer lock (its own claim, or the one it is handed) until closed: one writer per session."""

    def __init__(self, path: Path, next_seq: int = 0, writer: Writer | None = None) -> None:
        self.path = path
        self._seq = next_seq
        self._lock = threading.Lock()
        self._writer = writer if writer is not None else Writer.claim(path.parent)
        try:
            self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the log's life
        except OSError:
            self._writer.release()
            raise

    def append(self, event: E) -> E:
        """Write `event` as the log's next one, numbered and timed here (whatever seq and time it held): the
        event as logged is returned."""
        if not isinstance(event, EventBase):
            raise TypeError(f"not an event: {event!r}")
        with self._lock:
            logged = dataclasses.replace(event, seq=self._seq, time=time.time())
            self._file.write(json.dumps(event_to_dict(logged), default=str) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
            self._seq += 1
        return logged

    def close(self) -> None:
        with self._lock:
            self._file.close()
            self._writer.release()


@dataclass
class LogContents:
    start: SessionStart
    events: list[Event] = field(default_factory=list)  # the start first
    truncated_line: str | None = None  # a last line cut short by a kill, dropped


def read_log(path: Path) -> LogContents:
    """Every complete event of a log; a torn last line is dropped and reported, a torn line anywhere
    else, a line that is no event of this schema, or a newer schema is an error."""
    if not path.exists():
        raise LogError(f"{path}: no session log here")
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError as exc:  # a folder where the log should be, no permission to read it: one line, not a traceback
        raise LogError(f"{path}: cannot read the session log ({exc.strerror or exc})") from None
    if lines and lines[-1] == "":
        lines.pop()
    objects: list[Any] = []
    truncated_line = None
    for number, line in enumerate(lines, 1):
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):
                truncated_line = line
                break
            raise LogError(f"{path}:{number}: not a JSON event") from None
    first = objects[0] if objects else None
    if not isinstance(first, dict) or first.get("kind") != "session_start":
        raise LogError(f"{path}: the first event is not session_start")
    try:
        check_version(first.get("version"))  # before any line is read as this schema's: a newer one says so first
    except LogError as exc:
        raise LogError(f"{path}: {exc}") from None
    events = []
    for number, data in enumerate(objects, 1):
        try:
            events.append(event_from_dict(data))
        except LogError as exc:
            raise LogError(f"{path}:{number}: {exc}") from None
    start = events[0]
    assert isinstance(start, SessionStart)  # its kind was checked above
    return LogContents(start, events, truncated_line)
