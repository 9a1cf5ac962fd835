"""OpenAI-compatible chat completions (OpenAI itself, vLLM, SGLang, ...): streamed, retried, cancellable.

Plain HTTP with `httpx2` (the HTTP library the `anthropic` SDK already brings, with its SSE parser) rather than
the `openai` SDK: the project does not depend on that SDK, and a local server that wants no key then gets no
Authorization header at all instead of a placeholder one. Retries and cancel follow the same rules as
`anthropic_provider`: a stream that breaks off is thrown away and the request sent again.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2

from workbench.agent.conversation import ModelRequest, ModelResponse, Usage
from workbench.agent.openai_chat import ChunkAssembler, chat_body
from workbench.agent.provider import (
    REASONING_EFFORTS,
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

DEFAULT_MODEL = "gpt-4.1"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_ENV = "OPENAI_API_KEY"


class OpenAIProvider:
    """A model behind an OpenAI-compatible `/chat/completions` endpoint.

    `base_url` is the API root including its version (`http://localhost:8000/v1` for vLLM); it defaults to
    $OPENAI_BASE_URL, else OpenAI's. The key is `api_key`, else the variable `api_key_env` names
    (MissingKeyError when unset); `api_key_env=None` means the server needs no key. `max_tokens`, when
    given, replaces each request's own; it is sent as `max_tokens_param` (OpenAI's newer models accept only
    `max_completion_tokens`, which vLLM and SGLang accept too; some older servers want `max_tokens`).
    `reasoning_effort` (low, medium, high) is sent with each request, for the servers and models that reason; one
    that refuses the field ends the request with a one-line error that names the option.
    """

    name = "openai"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        api_key_env: str | None = KEY_ENV,
        max_retries: int = 6,
        backoff_base_s: float = 1.0,
        max_tokens: int | None = None,
        max_tokens_param: str = "max_completion_tokens",
        timeout_s: float = 600.0,
        reasoning_effort: str | None = None,
    ) -> None:
        key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
        if not key and api_key_env:
            raise MissingKeyError(f"{api_key_env} is not set")
        if reasoning_effort is not None and reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"the reasoning effort is one of {', '.join(REASONING_EFFORTS)}, not {reasoning_effort!r}")
        self.model = model
        self.reasoning_effort = reasoning_effort
        self.max_tokens = max_tokens
        self.max_tokens_param = max_tokens_param
        self.backoff = Backoff(max_retries=max_retries, base_s=backoff_base_s)
        self._key = key or ""
        root = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.base_url = root  # recorded by a session, so that resume and branch go back to the same server
        self._url = f"{root}/chat/completions"
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx2.Client(timeout=httpx2.Timeout(timeout_s, connect=10.0))

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, url={self._url!r})"

    def complete(
        self,
        request: ModelRequest,
        on_delta: DeltaCallback,
        cancel: threading.Event,
        on_retry: RetryCallback | None = None,
    ) -> ModelResponse:
        """Stream one response to `request`; see `Provider.complete`."""
        max_tokens = self.max_tokens if self.max_tokens is not None else request.max_tokens
        body = chat_body(request, self.model, max_tokens, self.max_tokens_param)
        started = time.monotonic()
        spent = RetrySpend()
        response, retries = call_with_retries(lambda: self._attempt(body, on_delta, cancel), self.backoff,
                                              cancel, on_retry, spent)  # fmt: skip
        response.latency_s = time.monotonic() - started
        response.retries = retries
        response.retried_usage, response.retried_unmetered = spent.usage, spent.unmetered
        return response

    def _attempt(self, body: dict[str, Any], on_delta: DeltaCallback, cancel: threading.Event) -> ModelResponse:
        assembler = ChunkAssembler(self.model)
        try:
            return self._stream(assembler, body, on_delta, cancel)
        except Transient as exc:
            # Chat Completions reports usage in the last chunk: a stream cut after its first chunk was billed for
            # tokens nobody was told of (unknown), unless the usage chunk had come
            if assembler.raw_id is not None:
                exc.billed = True
                exc.usage = Usage(**vars(assembler.usage)) if assembler.usage_reported else None
            raise

    def _stream(
        self, assembler: ChunkAssembler, body: dict[str, Any], on_delta: DeltaCallback, cancel: threading.Event
    ) -> ModelResponse:
        done = False
        try:
            with CancellableStream(lambda: self._open(body), cancel) as stream:
                for event in stream:
                    if event.data.strip() == "[DONE]":
                        done = True  # read on to the end, which hands the connection back for reuse
                        continue
                    chunk = _parse_chunk(event.data)
                    if isinstance(chunk.get("error"), dict):
                        raise self._stream_error(chunk["error"])
                    for delta in assembler.feed(chunk):
                        on_delta(delta)
        except Interrupted:
            raise Interrupted(assembler.text()) from None
        except httpx2.SSEError as exc:
            raise ProviderError(f"the server did not answer with a stream: {exc}") from exc
        except httpx2.TransportError as exc:
            raise Transient(f"connection error: {type(exc).__name__}") from exc
        if not done and assembler.finish_reason is None:
            raise Transient("the stream broke off before its finish_reason")
        return assembler.response()

    def _open(self, body: dict[str, Any]) -> tuple[Iterator[httpx2.ServerSentEvent], httpx2.Response]:
        request = self._client.build_request("POST", self._url, json=body, headers=self._headers)
        response = self._client.send(request, stream=True)
        if response.status_code >= 400:
            try:
                response.read()
            finally:
                response.close()
            raise self._status_error(response)
        return iter(httpx2.EventSource(response)), response

    def _status_error(self, response: httpx2.Response) -> Exception:
        text = self._redact(f"{response.status_code}: {_error_message(response.text)}")
        if is_transient_status(response.status_code):
            return Transient(text, retry_after_s(response.headers))
        if response.status_code == 400 and is_context_too_long(response.text):
            return ContextTooLong(f"chat completions error {text}")
        if 400 <= response.status_code < 500 and "reasoning_effort" in response.text:
            return ProviderError(f"{self._url} does not take a reasoning effort (--reasoning-effort): {text}")
        return ProviderError(f"chat completions error {text}")

    def _stream_error(self, error: dict[str, Any]) -> Exception:
        # Servers send an error chunk when generation fails after the stream began; its code, when numeric,
        # says whether trying again can help.
        code = error.get("code")
        text = self._redact(f"{code}: {error.get('message') or error}")
        if isinstance(code, int) and not is_transient_status(code):
            return ProviderError(f"chat completions error in the stream {text}")
        return Transient(f"error in the stream: {text}")

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[API key]") if self._key else text


def _parse_chunk(data: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError as exc:
        raise Transient(f"a garbled chunk in the stream: {data[:80]!r}") from exc
    return chunk if isinstance(chunk, dict) else {}


def _error_message(body: str) -> str:
    """The message of an error body, as OpenAI ({"error": {"message"}}) or vLLM ({"message"}) shape it."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return body.strip()[:500] or "(no body)"
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if data.get("message"):
            return str(data["message"])
    return body.strip()[:500]
