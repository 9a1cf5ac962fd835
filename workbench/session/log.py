"""The session log: `events.jsonl`, one event a line, appended, flushed and fsynced per event.

This module is the one place that knows the log's schema. Every event has `seq`, `time`, `turn` and
`kind`; the first is `session_start` with the schema `version`. A reader tolerates a truncated last
line (a kill mid-write) and reports it; it refuses a log written by a newer schema.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.session.writer import Writer

SCHEMA_VERSION = 1
EVENT_KINDS = frozenset(
    """session_start session_resumed model_request model_response model_retry tool_call tool_result
    eval_result submission files human interrupt error turn_end session_end judgement""".split()
)


class LogError(ValueError):
    """A log that cannot be read: missing, malformed, or from a newer schema."""


Event = dict[str, Any]


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

    def append(self, kind: str, turn: int, **fields: Any) -> Event:
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        with self._lock:
            event = {"seq": self._seq, "time": time.time(), "turn": turn, "kind": kind, **fields}
            self._file.write(json.dumps(event, default=str) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
            self._seq += 1
        return event

    def close(self) -> None:
        with self._lock:
            self._file.close()
            self._writer.release()


@dataclass
class LogContents:
    events: list[Event] = field(default_factory=list)
    truncated_line: str | None = None  # a last line cut short by a kill, dropped

    @property
    def start(self) -> Event:
        return self.events[0]


def read_log(path: Path) -> LogContents:
    """Every complete event of a log; a torn last line is dropped and reported, a torn line anywhere
    else or a newer schema is an error."""
    if not path.exists():
        raise LogError(f"{path}: no session log here")
    contents = LogContents()
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        try:
            contents.events.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):
                contents.truncated_line = line
                break
            raise LogError(f"{path}:{number}: not a JSON event") from None
    if not contents.events or contents.events[0].get("kind") != "session_start":
        raise LogError(f"{path}: the first event is not session_start")
    version = contents.events[0].get("version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise LogError(
            f"{path}: written by log schema version {version}; this workbench reads up to {SCHEMA_VERSION}"
            " (upgrade the workbench)"
        )
    return contents
