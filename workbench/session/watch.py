"""Following a session that another process writes: its events as their lines are completed, without the lock.

The writer appends one line an event and fsyncs it; a reader that polls the file's size sees each line whole
soon after. A line without its newline yet is a write in progress, not a torn one, and is waited for. A resume
after a kill cuts a torn last line before appending: the file shrinks below what was read, and the part of the
line that was read is dropped. The events come as the log holds them; a `session_resumed` names those it
discards (`history.effective` takes them out).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from workbench.session.events import Event, LogError, SessionStart, check_version, event_from_dict

POLL_S = 0.1


class SessionWatch:
    """An iterator over a session's events, from its first, that waits for more until stop() (from any thread) or
    until the session ends with `until_end`. Never takes the writer lock; never writes."""

    def __init__(self, folder: Path, poll_s: float = POLL_S, until_end: bool = False) -> None:
        self.path = folder / "events.jsonl"
        self.poll_s = poll_s
        self.until_end = until_end
        self._stopped = threading.Event()

    def stop(self) -> None:
        """End the iteration: at once if it is waiting, else after the events already read."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def __iter__(self) -> Iterator[Event]:
        consumed = 0  # bytes of complete lines read
        partial = b""  # a line still being written
        number = 0
        while not self._stopped.is_set():
            chunk, size = self._read_from(consumed + len(partial))
            if size < consumed + len(partial):  # a resume cut a torn last line: what was read of it is gone
                partial, chunk = b"", self._read_from(consumed)[0]
            partial += chunk
            *lines, partial = partial.split(b"\n")
            for line in lines:
                consumed += len(line) + 1
                number += 1
                event = self._event(line, number)
                yield event
                if self.until_end and event.kind == "session_end":
                    return
                if self._stopped.is_set():
                    return
            if not chunk:
                self._stopped.wait(self.poll_s)

    def _read_from(self, offset: int) -> tuple[bytes, int]:
        """What the file holds past `offset`, and its size; nothing while it does not exist yet."""
        try:
            with open(self.path, "rb") as log:
                size = os.fstat(log.fileno()).st_size
                log.seek(min(offset, size))
                return log.read(), size
        except FileNotFoundError:
            return b"", 0

    def _event(self, line: bytes, number: int) -> Event:
        try:
            data = json.loads(line)
        except ValueError:
            raise LogError(f"{self.path}:{number}: not a JSON event") from None
        try:
            if number == 1:
                if not isinstance(data, dict) or data.get("kind") != "session_start":
                    raise LogError("the first event is not session_start")
                check_version(data.get("version"))
            event = event_from_dict(data)
        except LogError as exc:
            raise LogError(f"{self.path}:{number}: {exc}") from None
        assert number > 1 or isinstance(event, SessionStart)
        return event
