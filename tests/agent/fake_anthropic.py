"""A local stand-in for the Anthropic Messages API, for tests that run the real SDK against it.

    with FakeAnthropic() as fake:
        fake.push(tool("bash", {"cmd": "ls"}), text("done"))   # one behaviour per request, in order
        provider = AnthropicProvider("claude-sonnet-4-5", api_key="k", base_url=fake.url)
        ...
        fake.requests[0].body["messages"]                      # what the client sent

POST /v1/messages answers `stream: true` with the same Server-Sent Events the real API sends (message_start
with cache usage, content_block_start/delta/stop for thinking, text and tool_use, message_delta, message_stop), and
a plain request with the whole message. A Reply's `thinking` is sent only to a request that turned thinking on, as
the real API does: first in the message, streamed as thinking_delta pieces and one signature_delta (`sign`), or as
a redacted_thinking block. Behaviours: `Reply` (or `text`, `tool`), `HttpError` (or
`rate_limited`, `overloaded`, `server_error`, `api_error`), or a callable taking the request body and
returning one of those. With the script empty the fake answers 400, so a client fails at once.

Every request is first held to the real API's rules (anthropic_rules.py: fields, text blocks, role alternation,
tool_use / tool_result pairing, cache breakpoints, max_tokens, the context window); a request that breaks one is
answered 400 `invalid_request_error` with the real message, and the scripted behaviour waits for the next request.
With `measure_usage=True` a reply's usage is what the request measures (its input tokens, what the prompt cache
read and wrote, the reply's output tokens) instead of the figures scripted on the Reply.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from .anthropic_rules import Limits, PromptCache, RuleBroken, check_request, estimate_tokens, redacted_data, sign
from .fake_http import FakeServer, HttpError, Recorded, Timing, pieces, sse

__all__ = ["FakeAnthropic", "HttpError", "Limits", "Recorded", "Reply", "Timing", "ToolUse"]
__all__ += ["api_error", "overloaded", "rate_limited", "server_error", "text", "tool"]


@dataclass
class ToolUse:
    name: str
    input: dict[str, Any]
    id: str | None = None  # default: toolu_fake_<request>_<n>


@dataclass
class Reply:
    """One assistant message: text, then tool uses, streamed in pieces of `chunk` characters."""

    text: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    stop_reason: str | None = None  # default: tool_use when there are tool uses, else end_turn
    input_tokens: int = 100
    output_tokens: int = 20
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    chunk: int = 4
    timing: Timing = field(default_factory=Timing)
    stream_error: str | None = None  # an `error` event of this type right after message_start
    garbage: bool = False  # a `data:` line that is not JSON right after message_start (a proxy's mangled stream)
    model: str | None = None  # default: the requested model
    texts: list[str] | None = None  # text blocks as given, even empty or blank ones (the real model sends those)
    last_tool_json: str | None = None  # the last tool's input JSON as sent: cut short, or malformed
    thinking: str | None = None  # sent first when the request turned thinking on
    redacted: bool = False  # the thinking comes as a redacted_thinking block
    unsigned: bool = False  # the thinking block breaks off before its signature (cut at max_tokens)

    def text_blocks(self) -> list[str]:
        return self.texts if self.texts is not None else ([self.text] if self.text else [])

    def tool_json(self, use: ToolUse, last: bool) -> str:
        return self.last_tool_json if last and self.last_tool_json is not None else json.dumps(use.input)


def text(content: str, **options: Any) -> Reply:
    return Reply(text=content, **options)


def tool(name: str, input: dict[str, Any], text: str = "", **options: Any) -> Reply:
    return Reply(text=text, tool_uses=[ToolUse(name, input)], **options)


def api_error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> HttpError:
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake_error"}
    return HttpError(status, body, {"request-id": "req_fake_error", **(headers or {})})


def rate_limited(retry_after: str = "0") -> HttpError:
    return api_error(
        429, "rate_limit_error", "Number of request tokens has exceeded your rate limit.", {"retry-after": retry_after}
    )


def overloaded() -> HttpError:
    return api_error(529, "overloaded_error", "Overloaded")


def server_error() -> HttpError:
    return api_error(500, "api_error", "Internal server error")


class FakeAnthropic(FakeServer):
    """The fake Messages API; `url` is the SDK's base_url."""

    endpoint = "/v1/messages"

    def __init__(self, limits: Limits | None = None, measure_usage: bool = False) -> None:
        super().__init__()
        self.limits = limits or Limits()
        self.measure_usage = measure_usage
        self.cache = PromptCache()
        self.rejected: list[tuple[Recorded, str]] = []  # requests the rules refused, with the message
        self.input_tokens: list[int] = []  # each accepted request's input tokens, as the rules counted them

    def _next(self, recorded: Recorded) -> Any:
        try:
            tokens = check_request(recorded.body, self.limits)
        except RuleBroken as broken:
            with self._lock:
                self.requests.append(recorded)
                self.rejected.append((recorded, str(broken)))
                self._lock.notify_all()
            return api_error(400, "invalid_request_error", str(broken))
        behaviour = super()._next(recorded)
        self.input_tokens.append(tokens)
        if self.measure_usage and isinstance(behaviour, Reply):
            uncached, read, written = self.cache.account(recorded.body, tokens)
            output = estimate_tokens(behaviour.text or " ") + sum(estimate_tokens(u.input) for u in behaviour.tool_uses)
            if behaviour.thinking and _thinking_on(recorded.body):
                output += estimate_tokens(behaviour.thinking)  # billed as output, as the real API bills it
            behaviour = dataclasses.replace(behaviour, input_tokens=uncached, cache_read_input_tokens=read,
                                            cache_creation_input_tokens=written, output_tokens=output)  # fmt: skip
        return behaviour

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def unscripted(self) -> HttpError:
        return api_error(
            400, "invalid_request_error", f"fake_anthropic: nothing scripted for request {len(self.requests)}"
        )

    def respond(self, handler: Any, behaviour: Any, body: dict[str, Any]) -> None:
        if isinstance(behaviour, HttpError):
            self.send_error(handler, behaviour)
            return
        reply: Reply = behaviour
        number = len(self.requests)
        uses = [ToolUse(u.name, u.input, u.id or f"toolu_fake_{number}_{i}") for i, u in enumerate(reply.tool_uses)]
        if not _thinking_on(body):
            reply = dataclasses.replace(reply, thinking=None)
        message = _message(reply, uses, body.get("model", "claude-fake"), f"msg_fake_{number}")
        if body.get("stream"):
            self.send_events(handler, _events(reply, uses, message), reply.timing)
        else:
            self.send_json(handler, message)


def _thinking_on(body: dict[str, Any]) -> bool:
    return (body.get("thinking") or {}).get("type") == "enabled"


def _thinking_block(reply: Reply) -> list[dict[str, Any]]:
    if reply.thinking is None:
        return []
    if reply.redacted:
        return [{"type": "redacted_thinking", "data": redacted_data(reply.thinking)}]
    signature = "" if reply.unsigned else sign(reply.thinking)
    return [{"type": "thinking", "thinking": reply.thinking, "signature": signature}]


def _message(reply: Reply, uses: list[ToolUse], model: str, message_id: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = _thinking_block(reply)
    content += [{"type": "text", "text": t} for t in reply.text_blocks()]
    content += [{"type": "tool_use", "id": u.id, "name": u.name, "input": u.input} for u in uses]
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": reply.model or model,
        "content": content,
        "stop_reason": reply.stop_reason or ("tool_use" if uses else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": reply.input_tokens,
            "cache_creation_input_tokens": reply.cache_creation_input_tokens,
            "cache_read_input_tokens": reply.cache_read_input_tokens,
            "output_tokens": reply.output_tokens,
        },
    }


def _events(reply: Reply, uses: list[ToolUse], message: dict[str, Any]) -> list[str]:
    start = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 1}}
    events = [sse({"type": "message_start", "message": start}, "message_start")]
    if reply.stream_error:
        error = {"type": "error", "error": {"type": reply.stream_error, "message": "Overloaded"}}
        return [*events, sse(error, "error")]
    if reply.garbage:
        mangled = '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_d'
        events.append(sse(mangled, "content_block_delta"))
    events.append(sse({"type": "ping"}, "ping"))
    index = 0
    for block in _thinking_block(reply):
        if block["type"] == "redacted_thinking":
            events.append(_block_start(index, block))
        else:
            events.append(_block_start(index, {"type": "thinking", "thinking": "", "signature": ""}))
            for piece in pieces(block["thinking"], reply.chunk):
                events.append(_block_delta(index, {"type": "thinking_delta", "thinking": piece}))
            if block["signature"]:
                events.append(_block_delta(index, {"type": "signature_delta", "signature": block["signature"]}))
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    for block_text in reply.text_blocks():
        events.append(_block_start(index, {"type": "text", "text": ""}))
        for piece in pieces(block_text, reply.chunk):
            events.append(_block_delta(index, {"type": "text_delta", "text": piece}))
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    for number, use in enumerate(uses):
        events.append(_block_start(index, {"type": "tool_use", "id": use.id, "name": use.name, "input": {}}))
        # The real API opens with an empty fragment, then sends the JSON in arbitrary pieces.
        for piece in ["", *pieces(reply.tool_json(use, number == len(uses) - 1), reply.chunk)]:
            events.append(_block_delta(index, {"type": "input_json_delta", "partial_json": piece}))
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append(
        sse({"type": "message_delta", "delta": delta, "usage": {"output_tokens": reply.output_tokens}}, "message_delta")
    )
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def _block_start(index: int, block: dict[str, Any]) -> str:
    return sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")


def _block_delta(index: int, delta: dict[str, Any]) -> str:
    return sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
