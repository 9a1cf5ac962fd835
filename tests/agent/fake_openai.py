"""A local stand-in for an OpenAI-compatible chat-completions server (OpenAI, vLLM, SGLang).

    with FakeOpenAI() as fake:
        fake.push(call("bash", {"cmd": "ls"}), text("done"))
        provider = OpenAIProvider("gpt-4.1", api_key="k", base_url=fake.url)

POST /v1/chat/completions answers `stream: true` with chat.completion.chunk events (a role chunk, content
pieces, tool_calls fragments keyed by index with the arguments split up, a chunk with finish_reason, a usage
chunk when stream_options.include_usage, then `data: [DONE]`), and a plain request with the whole
completion. A Reply's `reasoning` streams first, as `reasoning_content` deltas (vLLM, SGLang, DeepSeek), counted in
the completion tokens as the servers bill it. Behaviours: `Reply` (or `text`, `call`), `HttpError` (or
`rate_limited`, `server_error`, `api_error`), or a callable taking the request body. With the script empty the fake
answers 400.

Every request is first held to the real API's rules (openai_rules.py: fields, roles, tool messages answering each
tool call, max tokens, the context window); one that breaks a rule is answered 400 with the real message and the
scripted behaviour waits. With `measure_usage=True` a reply's usage is what the request measures (prompt tokens, the
automatic prefix cache's cached tokens, the reply's completion tokens).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from .anthropic_rules import estimate_tokens
from .fake_http import FakeServer, HttpError, Recorded, Timing, pieces, sse
from .openai_rules import Limits, PrefixCache, RuleBroken, check_request

__all__ = ["FakeOpenAI", "HttpError", "Limits", "Recorded", "Reply", "Timing", "ToolCall"]
__all__ += ["api_error", "call", "rate_limited", "server_error", "text"]


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str | None = None  # default: call_fake_<request>_<n>


@dataclass
class Reply:
    """One completion: text, then tool calls, streamed in pieces of `chunk` characters."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None  # default: tool_calls when there are calls, else stop
    prompt_tokens: int = 100
    completion_tokens: int = 20
    cached_tokens: int | None = None  # prompt_tokens_details.cached_tokens, left out when None
    chunk: int = 4
    timing: Timing = field(default_factory=Timing)
    omit_ids: bool = False  # as some local servers do
    stream_error: dict[str, Any] | None = None  # an {"error": ...} chunk after the first one
    last_call_arguments: str | None = None  # the last call's arguments as sent: cut short, or malformed
    model: str | None = None
    reasoning: str = ""  # streamed as reasoning_content before the content


def text(content: str, **options: Any) -> Reply:
    return Reply(text=content, **options)


def call(name: str, arguments: dict[str, Any], text: str = "", **options: Any) -> Reply:
    return Reply(text=text, tool_calls=[ToolCall(name, arguments)], **options)


def api_error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> HttpError:
    return HttpError(status, {"error": {"message": message, "type": kind, "param": None, "code": None}}, headers or {})


def rate_limited(retry_after: str = "0") -> HttpError:
    return api_error(429, "rate_limit_exceeded", "Rate limit reached.", {"retry-after": retry_after})


def server_error(status: int = 500) -> HttpError:
    return api_error(status, "server_error", "The server had an error while processing your request.")


class FakeOpenAI(FakeServer):
    """The fake chat-completions API; `url` is the base URL with its /v1."""

    endpoint = "/v1/chat/completions"
    reports_usage = True  # False: a server that ignores stream_options.include_usage (some local servers do)
    takes_reasoning_effort = True  # False: a server or model that refuses the field, as the non-reasoning ones do

    def __init__(self, limits: Limits | None = None, measure_usage: bool = False) -> None:
        super().__init__()
        self.limits = limits or Limits(context_window=128_000, max_output_tokens=32_768)
        self.measure_usage = measure_usage
        self.cache = PrefixCache()
        self.rejected: list[tuple[Recorded, str]] = []
        self.prompt_tokens: list[int] = []

    def _next(self, recorded: Recorded) -> Any:
        try:
            tokens = check_request(recorded.body, self.limits, self.takes_reasoning_effort)
        except RuleBroken as broken:
            with self._lock:
                self.requests.append(recorded)
                self.rejected.append((recorded, str(broken)))
                self._lock.notify_all()
            return api_error(400, "invalid_request_error", str(broken))
        behaviour = super()._next(recorded)
        self.prompt_tokens.append(tokens)
        if self.measure_usage and isinstance(behaviour, Reply):
            output = estimate_tokens(behaviour.text or " ") + sum(
                estimate_tokens(c.arguments) for c in behaviour.tool_calls
            )
            output += estimate_tokens(behaviour.reasoning) if behaviour.reasoning else 0
            behaviour = dataclasses.replace(behaviour, prompt_tokens=tokens, completion_tokens=output,
                                            cached_tokens=self.cache.cached_tokens(recorded.body))  # fmt: skip
        return behaviour

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def unscripted(self) -> HttpError:
        return api_error(
            400, "invalid_request_error", f"fake_openai: nothing scripted for request {len(self.requests)}"
        )

    def respond(self, handler: Any, behaviour: Any, body: dict[str, Any]) -> None:
        if isinstance(behaviour, HttpError):
            self.send_error(handler, behaviour)
            return
        reply: Reply = behaviour
        number = len(self.requests)
        calls = [
            ToolCall(c.name, c.arguments, c.id or f"call_fake_{number}_{i}") for i, c in enumerate(reply.tool_calls)
        ]
        base = {"id": f"chatcmpl-fake-{number}", "created": 1_700_000_000, "model": reply.model or body.get("model")}
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
            if calls:
                message["tool_calls"] = [_call_dict(c, _arguments(reply, c, i == len(calls) - 1))
                                         for i, c in enumerate(calls)]  # fmt: skip
            choice = {"index": 0, "message": message, "finish_reason": finish}
            self.send_json(handler, {**base, "object": "chat.completion", "choices": [choice], "usage": _usage(reply)})
            return
        with_usage = bool((body.get("stream_options") or {}).get("include_usage")) and self.reports_usage
        self.send_events(handler, _events(reply, calls, base, finish, with_usage), reply.timing)


def _events(reply: Reply, calls: list[ToolCall], base: dict[str, Any], finish: str, with_usage: bool) -> list[str]:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data = {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        if with_usage:
            data["usage"] = None
        return sse(data)

    events = [chunk({"role": "assistant", "content": ""})]
    if reply.stream_error:
        return [*events, sse({"error": reply.stream_error})]
    if reply.reasoning:
        events += [chunk({"reasoning_content": piece}) for piece in pieces(reply.reasoning, reply.chunk)]
    if reply.text:
        events += [chunk({"content": piece}) for piece in pieces(reply.text, reply.chunk)]
    for index, c in enumerate(calls):
        first = _call_dict(c, "")
        if reply.omit_ids:
            del first["id"]
        events.append(chunk({"tool_calls": [{"index": index, **first}]}))
        for piece in pieces(_arguments(reply, c, index == len(calls) - 1), reply.chunk):
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(chunk({}, finish))
    if with_usage:
        events.append(sse({**base, "object": "chat.completion.chunk", "choices": [], "usage": _usage(reply)}))
    return [*events, sse("[DONE]")]


def _call_dict(c: ToolCall, arguments: str) -> dict[str, Any]:
    return {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments}}


def _usage(reply: Reply) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    return usage


def _arguments(reply: Reply, c: ToolCall, last: bool) -> str:
    return reply.last_call_arguments if last and reply.last_call_arguments is not None else json.dumps(c.arguments)
