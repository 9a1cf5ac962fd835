"""Claude through the official `anthropic` SDK: streamed, prompt-cached, retried with backoff, cancellable.

All retries are ours (the SDK's own are off) so that each one is reported through `on_retry`. A stream that
breaks off is thrown away whole and the request sent again: the deltas of the next attempt start over from
index 0, which a caller learns of through `on_retry`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
from anthropic import types as api

from workbench.agent.conversation import (
    Block,
    Delta,
    ModelRequest,
    ModelResponse,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from workbench.agent.provider import (
    MIN_THINKING_TOKENS,
    ContextTooLong,
    DeltaCallback,
    Interrupted,
    MissingKeyError,
    ProviderError,
    RetryCallback,
    is_context_too_long,
)
from workbench.agent.retry import (
    Backoff,
    RetrySpend,
    Transient,
    call_with_retries,
    is_transient_status,
    retry_after_s,
)
from workbench.agent.stream_reader import CancellableStream

DEFAULT_MODEL = "claude-sonnet-4-6"  # claude-sonnet-4-5 retires on 2026-11-30
KEY_ENV = "ANTHROPIC_API_KEY"
MAX_CACHE_BREAKPOINTS = 4  # the API rejects a request with more
# Error types the API may send inside a stream that has already begun (its status then reads 200).
_TRANSIENT_ERROR_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}


def _ephemeral() -> dict[str, str]:
    return {"type": "ephemeral"}


def request_params(request: ModelRequest, model: str, max_tokens: int | None = None) -> dict[str, Any]:
    """The Messages API body for `request`, with cache breakpoints that make each request's prefix cached.

    Breakpoints go on the system prompt, the last tool, the last block of the last message (written for the
    next request to read) and the last block of the user message before it (where the previous request
    wrote, so that read hits even when a turn adds many blocks). All of it is built on fresh dicts: the
    caller's request is left as it was.
    """
    messages = [message.to_dict() for message in request.messages]
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens if max_tokens is not None else request.max_tokens,
        "messages": messages,
    }
    if request.thinking_budget:
        # Nothing else goes with it that thinking forbids: no temperature or top_k, no tool_choice that forces a tool.
        params["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
    marks = 0
    if request.system:
        params["system"] = [{"type": "text", "text": request.system, "cache_control": _ephemeral()}]
        marks += 1
    if request.tools:
        tools = [tool.to_dict() for tool in request.tools]
        tools[-1]["cache_control"] = _ephemeral()
        params["tools"] = tools
        marks += 1
    previous_user = [i for i, m in enumerate(messages[:-1]) if m["role"] == "user"][-1:]
    for index in [len(messages) - 1, *previous_user] if messages else []:
        if marks < MAX_CACHE_BREAKPOINTS and _mark_last_block(messages[index]):
            marks += 1
    return params


def _mark_last_block(message: dict[str, Any]) -> bool:
    # An empty text block cannot carry cache_control; the block before it ends the same prefix anyway.
    for block in reversed(message["content"]):
        if block["type"] != "text" or block["text"]:
            block["cache_control"] = _ephemeral()
            return True
    return False


class _Assembler:
    """Builds the response from the stream's events, turning each into the Deltas a caller sees."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.raw_id: str | None = None
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.finished = False
        self._blocks: list[TextBlock | _ToolInProgress | ThinkingBlock | RedactedThinkingBlock] = []
        self._slots: dict[int, int] = {}  # the API's block index -> ours (blocks we skip get none)

    def feed(self, event: api.RawMessageStreamEvent) -> Iterator[Delta]:
        if isinstance(event, api.RawMessageStartEvent):
            self.raw_id, self.model = event.message.id, event.message.model or self.model
            start = event.message.usage
            self.usage = Usage(start.input_tokens, start.output_tokens, start.cache_read_input_tokens or 0,
                               start.cache_creation_input_tokens or 0)  # fmt: skip
        elif isinstance(event, api.RawContentBlockStartEvent):
            block = event.content_block
            if isinstance(block, api.ToolUseBlock):
                self._slots[event.index] = len(self._blocks)
                self._blocks.append(_ToolInProgress(block.id, block.name))
                yield Delta("tool_start", self._slots[event.index], tool_name=block.name, tool_id=block.id)
            elif isinstance(block, api.TextBlock):
                yield from self._text(event.index, block.text)
            elif isinstance(block, api.ThinkingBlock):
                yield from self._thinking(event.index, block.thinking, block.signature or "")
            elif isinstance(block, api.RedactedThinkingBlock):
                self._slots[event.index] = len(self._blocks)
                self._blocks.append(RedactedThinkingBlock(block.data))
        elif isinstance(event, api.RawContentBlockDeltaEvent):
            delta = event.delta
            if isinstance(delta, api.TextDelta):
                yield from self._text(event.index, delta.text)
            elif isinstance(delta, api.ThinkingDelta):
                yield from self._thinking(event.index, delta.thinking, "")
            elif isinstance(delta, api.SignatureDelta):
                yield from self._thinking(event.index, "", delta.signature)
            elif isinstance(delta, api.InputJSONDelta) and delta.partial_json and event.index in self._slots:
                tool = self._blocks[self._slots[event.index]]
                assert isinstance(tool, _ToolInProgress)
                tool.parts.append(delta.partial_json)
                yield Delta("tool_input", self._slots[event.index], text=delta.partial_json)
        elif isinstance(event, api.RawMessageDeltaEvent):
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            usage = event.usage  # cumulative counts; the input ones are present only when they changed
            self.usage.output_tokens = usage.output_tokens
            self.usage.input_tokens = _or(usage.input_tokens, self.usage.input_tokens)
            self.usage.cache_read_tokens = _or(usage.cache_read_input_tokens, self.usage.cache_read_tokens)
            self.usage.cache_write_tokens = _or(usage.cache_creation_input_tokens, self.usage.cache_write_tokens)
        elif isinstance(event, api.RawMessageStopEvent):
            self.finished = True

    def _text(self, api_index: int, text: str) -> Iterator[Delta]:
        # A text block takes its place only with its first text, so empty blocks never reach the content.
        if not text:
            return
        if api_index not in self._slots:
            self._slots[api_index] = len(self._blocks)
            self._blocks.append(TextBlock(""))
        block = self._blocks[self._slots[api_index]]
        assert isinstance(block, TextBlock)
        block.text += text
        yield Delta("text", self._slots[api_index], text=text)

    def _thinking(self, api_index: int, text: str, signature: str) -> Iterator[Delta]:
        # The block takes its place at its start, even empty: its signature may come without any text.
        if api_index not in self._slots:
            self._slots[api_index] = len(self._blocks)
            self._blocks.append(ThinkingBlock("", ""))
        block = self._blocks[self._slots[api_index]]
        assert isinstance(block, ThinkingBlock)
        block.thinking += text
        block.signature += signature
        if text:
            yield Delta("thinking", self._slots[api_index], text=text)

    def text(self) -> str:
        return "".join(b.text for b in self._blocks if isinstance(b, TextBlock))

    def response(self) -> ModelResponse:
        if not self.finished:
            raise Transient("the stream broke off before message_stop")
        content: list[Block] = [b.block() if isinstance(b, _ToolInProgress) else b for b in self._blocks]
        return ModelResponse(content, self.stop_reason or "end_turn", self.usage, self.model, raw_id=self.raw_id)


class _ToolInProgress:
    def __init__(self, tool_id: str, name: str) -> None:
        self.id, self.name = tool_id, name
        self.parts: list[str] = []

    def block(self) -> ToolUseBlock:
        raw = "".join(self.parts)
        try:
            value = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            value = None
        # Input cut short (at max_tokens, say) is kept verbatim, so the tool reports it and the log shows it.
        return ToolUseBlock(self.id, self.name, value if isinstance(value, dict) else {"_unparsed_input": raw})


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


class AnthropicProvider:
    """Claude models through the Messages API.

    `api_key` defaults to $ANTHROPIC_API_KEY (MissingKeyError when neither is set); `base_url` to the SDK's
    default (or $ANTHROPIC_BASE_URL). `max_tokens`, when given, replaces each request's own. Transient
    failures are retried up to `max_retries` times, waiting about backoff_base_s * 2**n with jitter, or
    the server's retry-after when longer. `thinking_budget` is the extended thinking a session asks for (tokens,
    at least MIN_THINKING_TOKENS); each request carries what it gets (`ModelRequest.thinking_budget`: the session's
    loop turns it down near the context window).
    """

    name = "anthropic"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 6,
        backoff_base_s: float = 1.0,
        max_tokens: int | None = None,
        timeout_s: float = 600.0,
        thinking_budget: int | None = None,
    ) -> None:
        key = api_key or os.environ.get(KEY_ENV)
        if not key:
            raise MissingKeyError(f"{KEY_ENV} is not set")
        if thinking_budget is not None and thinking_budget < MIN_THINKING_TOKENS:
            raise ValueError(f"a thinking budget is at least {MIN_THINKING_TOKENS} tokens, not {thinking_budget}")
        self.model = model
        self.base_url = base_url  # None: the SDK's own (or $ANTHROPIC_BASE_URL, which the SDK reads)
        self.max_tokens = max_tokens
        self.thinking_budget = thinking_budget
        self.backoff = Backoff(max_retries=max_retries, base_s=backoff_base_s)
        self._key = key
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, max_retries=0, timeout=anthropic.Timeout(timeout_s, connect=10.0)
        )

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r})"

    def complete(
        self,
        request: ModelRequest,
        on_delta: DeltaCallback,
        cancel: threading.Event,
        on_retry: RetryCallback | None = None,
    ) -> ModelResponse:
        """Stream one response to `request`; see `Provider.complete`."""
        params = request_params(request, self.model, self.max_tokens)
        started = time.monotonic()
        spent = RetrySpend()
        response, retries = call_with_retries(lambda: self._attempt(params, on_delta, cancel), self.backoff,
                                              cancel, on_retry, spent)  # fmt: skip
        response.latency_s = time.monotonic() - started
        response.retries = retries
        response.retried_usage, response.retried_unmetered = spent.usage, spent.unmetered
        return response

    def _attempt(self, params: dict[str, Any], on_delta: DeltaCallback, cancel: threading.Event) -> ModelResponse:
        assembler = _Assembler(self.model)
        try:
            return self._stream(assembler, params, on_delta, cancel)
        except Transient as exc:
            if assembler.raw_id is not None:  # message_start came: billed, as far as its usage tells
                exc.billed, exc.usage = True, Usage(**vars(assembler.usage))
            raise

    def _stream(
        self, assembler: _Assembler, params: dict[str, Any], on_delta: DeltaCallback, cancel: threading.Event
    ) -> ModelResponse:
        try:
            with CancellableStream(lambda: self._open(params), cancel) as stream:
                for event in stream:
                    for delta in assembler.feed(event):
                        on_delta(delta)
        except Interrupted:
            raise Interrupted(assembler.text()) from None
        except anthropic.APIStatusError as exc:
            # Not chained: the SDK's text quotes the whole body, which we cannot vouch is free of the key.
            raise self._status_error(exc) from None
        except anthropic.APIConnectionError as exc:
            raise Transient(f"connection error: {self._redact(exc.message)}") from exc
        except httpx2.TransportError as exc:
            raise Transient(f"the stream broke off: {type(exc).__name__}") from exc
        except json.JSONDecodeError as exc:  # a proxy or a server mangled an event: the next attempt may be whole
            raise Transient(f"the stream sent an event that is not JSON ({exc.msg})") from None
        return assembler.response()

    def _open(self, params: dict[str, Any]) -> tuple[Iterator[api.RawMessageStreamEvent], httpx2.Response]:
        stream = self._client.messages.create(**params, stream=True)
        return iter(stream), stream.response

    def _status_error(self, exc: anthropic.APIStatusError) -> Exception:
        kind = exc.type or "error"
        request_id = f" (request-id {exc.request_id})" if exc.request_id else ""
        text = self._redact(f"{exc.status_code} {kind}: {exc.api_message or exc.message}{request_id}")
        if exc.status_code < 400:  # an error event inside a stream that had begun well
            if kind in _TRANSIENT_ERROR_TYPES:
                return Transient(f"error in the stream: {text}")
            return ProviderError(f"Anthropic API error in the stream: {text}")
        if is_transient_status(exc.status_code):
            return Transient(text, retry_after_s(exc.response.headers))
        if exc.status_code == 400 and is_context_too_long(text):
            return ContextTooLong(f"Anthropic API error {text}")
        return ProviderError(f"Anthropic API error {text}")

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[API key]")
