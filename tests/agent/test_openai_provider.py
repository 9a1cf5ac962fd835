"""OpenAIProvider against the local fake chat-completions server: conversion, streaming, retries, cancel."""

from __future__ import annotations

import copy
import json
import threading
import time
import traceback
from collections.abc import Iterator
from typing import Any

import pytest

from workbench.agent.conversation import (
    Delta,
    Message,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from workbench.agent.openai_provider import OpenAIProvider
from workbench.agent.provider import Interrupted, MissingKeyError, ProviderError

from .fake_openai import FakeOpenAI, Reply, Timing, ToolCall, api_error, rate_limited, server_error
from .fake_openai import call as call_reply
from .fake_openai import text as text_reply

KEY = "sk-proj-test-0123456789abcdef"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def provider(fake: FakeOpenAI) -> OpenAIProvider:
    return OpenAIProvider("gpt-4.1", api_key=KEY, base_url=fake.url, max_retries=3, backoff_base_s=0.001)


def make_request() -> ModelRequest:
    tools = [ToolSpec("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})]
    messages = [
        Message("user", [TextBlock("Write the kernel.")]),
        Message(
            "assistant",
            [
                TextBlock("Reading first."),
                ToolUseBlock("call_1", "read", {"path": "task.md"}),
                ToolUseBlock("call_2", "read", {"path": "ref.py"}),
            ],
        ),
        Message(
            "user",
            [
                ToolResultBlock("call_1", "# Task"),
                ToolResultBlock("call_2", "no such file", is_error=True),
                TextBlock("Note: be quick."),
            ],
        ),
    ]
    return ModelRequest("You write Triton kernels.", tools, messages, max_tokens=1000)


class Recorder:
    def __init__(self) -> None:
        self.deltas: list[Delta] = []
        self.retries: list[tuple[int, str, float]] = []
        self.first_delta = threading.Event()

    def delta(self, delta: Delta) -> None:
        self.deltas.append(delta)
        self.first_delta.set()

    def retry(self, attempt: int, reason: str, delay: float) -> None:
        self.retries.append((attempt, reason, delay))


def complete(provider: OpenAIProvider, recorder: Recorder, cancel: threading.Event | None = None) -> ModelResponse:
    return provider.complete(make_request(), recorder.delta, cancel or threading.Event(), recorder.retry)


def test_the_conversation_is_converted_to_chat_messages(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(text_reply("ok"))
    request = make_request()
    before = copy.deepcopy(request)

    provider.complete(request, lambda d: None, threading.Event())

    body = fake.requests[0].body
    assert body["messages"] == [
        {"role": "system", "content": "You write Triton kernels."},
        {"role": "user", "content": "Write the kernel."},
        {
            "role": "assistant",
            "content": "Reading first.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"path": "task.md"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "read", "arguments": '{"path": "ref.py"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "# Task"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file"},
        {"role": "user", "content": "Note: be quick."},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read", "description": "Read a file.", "parameters": request.tools[0].input_schema},
        }
    ]
    assert body["max_completion_tokens"] == 1000 and body["model"] == "gpt-4.1"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert request == before


def test_text_and_tool_calls_stream_in_order_and_assemble(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    calls = [ToolCall("bash", {"cmd": "python bench.py"}), ToolCall("read", {"path": "kernel.py"})]
    fake.push(Reply(text="Benchmarking.", tool_calls=calls, chunk=3))
    recorder = Recorder()

    response = complete(provider, recorder)

    assert "".join(d.text for d in recorder.deltas if d.kind == "text") == "Benchmarking."
    starts = [d for d in recorder.deltas if d.kind == "tool_start"]
    assert [(d.index, d.tool_name, d.tool_id) for d in starts] == [
        (1, "bash", "call_fake_1_0"),
        (2, "read", "call_fake_1_1"),
    ]
    for start, call in zip(starts, calls):
        fragments = [d.text for d in recorder.deltas if d.kind == "tool_input" and d.index == start.index]
        assert len(fragments) > 1 and json.loads("".join(fragments)) == call.arguments
    indices = [d.index for d in recorder.deltas]
    assert indices == sorted(indices)
    assert response.content == [
        TextBlock("Benchmarking."),
        ToolUseBlock("call_fake_1_0", "bash", calls[0].arguments),
        ToolUseBlock("call_fake_1_1", "read", calls[1].arguments),
    ]
    assert response.stop_reason == "tool_use" and response.raw_id == "chatcmpl-fake-1"


def test_one_connection_serves_request_after_request(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(text_reply("one"), call_reply("bash", {"cmd": "ls"}), text_reply("three"))
    for _ in range(3):
        complete(provider, Recorder())
    assert len({r.client_port for r in fake.requests}) == 1


@pytest.mark.parametrize(
    ("finish", "expected"), [("stop", "end_turn"), ("length", "max_tokens"), ("content_filter", "content_filter")]
)
def test_finish_reasons_map_to_stop_reasons(
    fake: FakeOpenAI, provider: OpenAIProvider, finish: str, expected: str
) -> None:
    fake.push(Reply(text="hi", finish_reason=finish))
    assert complete(provider, Recorder()).stop_reason == expected


def test_calls_without_ids_get_ones(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(call_reply("bash", {"cmd": "ls"}, omit_ids=True, finish_reason="stop"))
    response = complete(provider, Recorder())
    (block,) = response.content
    assert isinstance(block, ToolUseBlock) and block.id.startswith("call_") and block.input == {"cmd": "ls"}
    assert response.stop_reason == "tool_use"  # "stop" after calling tools still means the calls are to run


def test_usage_splits_cached_prompt_tokens(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(Reply(text="ok", prompt_tokens=5000, completion_tokens=40, cached_tokens=4096), text_reply("ok"))
    first = complete(provider, Recorder())
    assert first.usage == Usage(input_tokens=904, output_tokens=40, cache_read_tokens=4096) and first.usage_reported
    assert complete(provider, Recorder()).usage == Usage(input_tokens=100, output_tokens=20)


def test_a_server_that_sends_no_usage_leaves_it_unknown(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    """Zero tokens would price the response at $0.00: the response says its usage was not reported instead."""
    fake.reports_usage = False
    fake.push(text_reply("ok"))
    response = complete(provider, Recorder())
    assert response.usage_reported is False and response.usage == Usage()


@pytest.mark.parametrize(
    "failure",
    [
        rate_limited(),
        server_error(503),
        server_error(500),
        Reply(text="cut off here", timing=Timing(cut_after=4)),
        Reply(text="ended early", timing=Timing(cut_after=4, clean_cut=True)),
        Reply(stream_error={"message": "engine overloaded", "type": "server_error", "code": 503}),
    ],
    ids=["429", "503", "500", "cut-stream", "ended-early", "error-chunk"],
)
def test_a_transient_failure_is_retried_and_reported(fake: FakeOpenAI, provider: OpenAIProvider, failure: Any) -> None:
    fake.push(failure, text_reply("recovered"))
    recorder = Recorder()

    response = complete(provider, recorder)

    assert response.content == [TextBlock("recovered")] and response.retries == 1
    assert [attempt for attempt, _, _ in recorder.retries] == [1]
    assert fake.requests[0].body == fake.requests[1].body


def test_rate_limit_retry_waits_for_retry_after(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(rate_limited(retry_after="0.2"), text_reply("ok"))
    recorder = Recorder()
    started = time.monotonic()
    complete(provider, recorder)
    ((attempt, reason, delay),) = recorder.retries
    assert attempt == 1 and "429" in reason and delay >= 0.2 and time.monotonic() - started >= 0.2


def test_gives_up_after_max_retries(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(*[server_error()] * 4)
    with pytest.raises(ProviderError, match="gave up after 3 retries.*500"):
        complete(provider, Recorder())
    assert len(fake.requests) == 4


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_fail_at_once_with_the_api_message(
    fake: FakeOpenAI, provider: OpenAIProvider, status: int
) -> None:
    fake.push(api_error(status, "invalid_request_error", "the server's own words"), text_reply("never sent"))
    recorder = Recorder()
    with pytest.raises(ProviderError, match=f"{status}: the server's own words"):
        complete(provider, recorder)
    assert recorder.retries == [] and len(fake.requests) == 1


def test_vllm_error_bodies_are_read_too(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    from .fake_openai import HttpError

    body = {
        "object": "error",
        "message": "This model's maximum context length is 8192 tokens.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
    fake.push(HttpError(400, body))
    with pytest.raises(ProviderError, match="maximum context length"):
        complete(provider, Recorder())


def test_cancel_mid_stream_interrupts_promptly(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(Reply(text="a long answer that stalls", chunk=2, timing=Timing(delay_s=30, slow_from=2)))
    recorder, cancel = Recorder(), threading.Event()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            complete(provider, recorder, cancel)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert recorder.first_delta.wait(5)
    started = time.monotonic()
    cancel.set()
    worker.join(5)

    assert time.monotonic() - started < 2
    assert isinstance(outcome[0], Interrupted) and outcome[0].partial_text == "a "


def test_cancel_while_waiting_for_headers_interrupts_promptly(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(Reply(text="late", timing=Timing(wait_s=30)))
    cancel = threading.Event()
    threading.Thread(target=lambda: fake.wait_for_requests(1) and cancel.set()).start()
    started = time.monotonic()
    with pytest.raises(Interrupted):
        complete(provider, Recorder(), cancel)
    assert time.monotonic() - started < 2


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MY_SERVER_KEY", raising=False)
    with pytest.raises(MissingKeyError, match="OPENAI_API_KEY is not set"):
        OpenAIProvider()
    with pytest.raises(MissingKeyError, match="MY_SERVER_KEY is not set"):
        OpenAIProvider(api_key_env="MY_SERVER_KEY")


def test_a_local_server_needs_no_key(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake.push(text_reply("ok"))
    provider = OpenAIProvider(
        "Qwen/Qwen3-Coder", base_url=fake.url, api_key_env=None, max_tokens=77, max_tokens_param="max_tokens"
    )
    provider.complete(make_request(), lambda d: None, threading.Event())
    recorded = fake.requests[0]
    assert "authorization" not in recorded.headers
    assert recorded.body["max_tokens"] == 77 and recorded.body["model"] == "Qwen/Qwen3-Coder"


def test_the_key_travels_only_in_the_auth_header(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    provider = OpenAIProvider(base_url=fake.url, max_retries=1, backoff_base_s=0.001)
    fake.push(text_reply("ok"), api_error(401, "invalid_api_key", f"Incorrect API key provided: {KEY}"))
    fake.push(server_error(), api_error(500, "server_error", f"boom {KEY}"))
    provider.complete(make_request(), lambda d: None, threading.Event())
    errors = []
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            provider.complete(make_request(), lambda d: None, threading.Event())
        errors.append(caught.value)

    for recorded in fake.requests:
        assert [name for name, value in recorded.headers.items() if KEY in value] == ["authorization"]
        assert recorded.headers["authorization"] == f"Bearer {KEY}" and KEY not in recorded.raw.decode()
    for error in errors:
        assert KEY not in "".join(traceback.format_exception(error)) and KEY not in repr(error)
    assert KEY not in repr(provider)


def test_the_fake_answers_plain_requests_like_the_api(fake: FakeOpenAI) -> None:
    import httpx2

    fake.push(call_reply("bash", {"cmd": "ls"}, text="Looking.", cached_tokens=64))
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
    completion = httpx2.post(f"{fake.url}/chat/completions", json=body).json()
    (choice,) = completion["choices"]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] == "Looking."
    assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"cmd": "ls"}
    assert completion["usage"]["prompt_tokens_details"] == {"cached_tokens": 64}


def test_a_cut_before_the_usage_chunk_is_billed_but_unknown(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    # Chat Completions reports usage last: the cut attempt was paid for, and nobody was told how much
    fake.push(Reply(text="cut off here", timing=Timing(cut_after=4)), text_reply("recovered"))
    response = complete(provider, Recorder())
    assert response.retries == 1 and response.retried_unmetered == 1
    assert response.retried_usage.input_tokens == 0


def test_an_attempt_refused_before_any_chunk_costs_nothing(fake: FakeOpenAI, provider: OpenAIProvider) -> None:
    fake.push(server_error(), text_reply("recovered"))
    response = complete(provider, Recorder())
    assert response.retries == 1 and response.retried_unmetered == 0
