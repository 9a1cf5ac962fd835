"""The machinery both fake model servers share: a threaded local HTTP server, a script, a request log.

A fake answers each POST with the next behaviour of its script (or with what a callable behaviour returns
for the request body), records every request, and can stream Server-Sent Events slowly, cut a stream off
mid-message, or hold back its answer. Subclasses say how a behaviour becomes events or an error body.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    """One request as the fake received it; header names are lower-case."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes
    client_port: int = 0  # the same port twice: the client kept its connection alive


@dataclass
class HttpError:
    """Answer with this status, JSON body and headers (e.g. retry-after)."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Timing:
    """How a stream is delivered: a pause before answering, between events, and where it is cut off."""

    wait_s: float = 0.0  # before the status line: the client is still waiting for headers
    delay_s: float = 0.0  # before each event from number `slow_from` (0: the first) on
    slow_from: int = 0
    cut_after: int | None = None  # drop the connection after this many events, mid-message
    clean_cut: bool = False  # at cut_after, end the body properly instead, as a proxy that gave up might


class FakeServer:
    """A scripted HTTP server on 127.0.0.1; use as a context manager, or start() and stop()."""

    endpoint = "/"

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._script: deque[Any] = deque()
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), name="fake-server", daemon=True
        )

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # ends any slow stream still sleeping
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def push(self, *behaviours: Any) -> None:
        """Queue behaviours, answered in order: one per request. A callable behaviour is called with the
        request body and returns the behaviour to use."""
        with self._lock:
            self._script.extend(behaviours)

    def pending(self) -> int:
        """Behaviours not used yet."""
        with self._lock:
            return len(self._script)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until `count` requests have arrived in all."""
        with self._lock:
            return self._lock.wait_for(lambda: len(self.requests) >= count, timeout)

    # -- for subclasses --

    def unscripted(self) -> HttpError:
        """The answer when the script has run out: a 400, so a client fails at once and says why."""
        raise NotImplementedError

    def respond(self, handler: _Handler, behaviour: Any, body: dict[str, Any]) -> None:
        raise NotImplementedError

    # -- shared delivery --

    def _next(self, recorded: Recorded) -> Any:
        with self._lock:
            self.requests.append(recorded)
            behaviour = self._script.popleft() if self._script else self.unscripted()
            self._lock.notify_all()
        return behaviour(recorded.body) if callable(behaviour) else behaviour

    def send_error(self, handler: _Handler, error: HttpError) -> None:
        payload = json.dumps(error.body).encode()
        handler.send_response(error.status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        for name, value in error.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)

    def send_json(self, handler: _Handler, data: dict[str, Any]) -> None:
        self.send_error(handler, HttpError(200, data))

    def send_events(self, handler: _Handler, events: list[str], timing: Timing) -> None:
        """Stream `events` (each a complete SSE event text) in chunked encoding, as the real APIs do."""
        if self._stop.wait(timing.wait_s):
            return _hang_up(handler)
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream; charset=utf-8")
        handler.send_header("transfer-encoding", "chunked")
        handler.send_header("cache-control", "no-cache")
        handler.end_headers()
        for sent, event in enumerate(events):
            if timing.cut_after is not None and sent >= timing.cut_after:
                if not timing.clean_cut:
                    return _hang_up(handler)  # no closing chunk, so the client sees an incomplete body
                break
            if sent >= timing.slow_from and self._stop.wait(timing.delay_s):
                return _hang_up(handler)
            data = event.encode()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()


def _hang_up(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.flush()
    handler.close_connection = True
    try:
        handler.connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def sse(data: dict[str, Any] | str, event: str | None = None) -> str:
    """One Server-Sent Event."""
    text = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "") + f"data: {text}\n\n"


def pieces(text: str, size: int) -> list[str]:
    """`text` in pieces of `size` characters (at least one piece, possibly empty)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler still streaming to a gone client must not hold up stop()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-stream is what several tests do on purpose


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeServer

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        body = json.loads(raw or b"{}")
        recorded = Recorded(self.path, headers, body, raw, self.client_address[1])
        if self.path.split("?")[0] != self.fake.endpoint:
            self.fake.send_error(self, HttpError(404, {"error": {"message": f"no route {self.path}"}}))
            return
        try:
            self.fake.respond(self, self.fake._next(recorded), body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _handler_for(fake: FakeServer) -> Callable[..., _Handler]:
    return type("Handler", (_Handler,), {"fake": fake})
