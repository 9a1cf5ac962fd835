"""Reading a streamed HTTP response on a helper thread, so that a cancel ends the wait at once.

A read blocked on a silent socket cannot see a cancel event, and closing a socket from another thread does
not wake a `recv` on Linux. So the response is read on a helper thread that hands each event over a queue;
the caller's thread checks `cancel` between events and while it waits, and on cancel shuts the socket down
(which does wake the blocked read) and raises Interrupted without waiting for the helper. The same covers
the wait for response headers, which happens on the helper too.
"""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Generic, TypeVar, cast

import httpx2

from workbench.agent.provider import Interrupted

T = TypeVar("T")

# How often the caller's thread looks at the cancel event while no event arrives.
POLL_S = 0.05

Opener = Callable[[], tuple[Iterator[T], httpx2.Response]]


@dataclass
class _Failed:
    error: BaseException


_END = object()


def shut_down(response: httpx2.Response) -> None:
    """Make a read blocked on this response return now, from any thread."""
    network_stream = response.extensions.get("network_stream")
    sock = network_stream.get_extra_info("socket") if network_stream is not None else None
    if isinstance(sock, socket.socket):
        try:
            # The base class's shutdown, because ssl.SSLSocket.shutdown also drops its TLS state under the
            # reading thread; a plain TCP shutdown is all it takes to wake that thread's recv.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass
    else:
        response.close()


class CancellableStream(Generic[T]):
    """Iterate the events of `open_stream()` (the events and the response they come from) until `cancel`.

    Use as a context manager: leaving it early aborts the read. Errors of the helper thread, opening
    included, are raised on the caller's thread; a cancel raises Interrupted() with no partial text, for
    the caller to fill in.
    """

    def __init__(self, open_stream: Opener[T], cancel: threading.Event) -> None:
        self._open = open_stream
        self._cancel = cancel
        self._items: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._response: httpx2.Response | None = None
        self._aborted = False
        self._thread = threading.Thread(target=self._read, name="provider-stream", daemon=True)

    def __enter__(self) -> CancellableStream[T]:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.abort()

    def abort(self) -> None:
        """Stop the helper's read; harmless once it has finished (its connection is back in the pool then)."""
        with self._lock:
            self._aborted = True
            if self._response is not None:
                shut_down(self._response)

    def __iter__(self) -> Iterator[T]:
        while True:
            if self._cancel.is_set():
                self.abort()
                raise Interrupted()
            try:
                item = self._items.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield cast(T, item)  # anything else on the queue came from the events iterator

    def _read(self) -> None:
        try:
            events, response = self._open()
        except BaseException as exc:  # handed to the caller's thread, which decides what it means
            self._items.put(_Failed(exc))
            return
        with self._lock:
            self._response = response
            aborted = self._aborted
        outcome: object = _END
        try:
            if not aborted:
                for event in events:
                    self._items.put(event)
                    if self._aborted:
                        break
        except BaseException as exc:
            outcome = _Failed(exc)
        finally:
            # Under the lock, so that abort() never shuts down a connection already handed back to the pool.
            with self._lock:
                self._response = None
            response.close()
        self._items.put(outcome)
