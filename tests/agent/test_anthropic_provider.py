"""AnthropicProvider with the real SDK against the local fake Messages API: streaming, caching, retries, cancel."""

from __future__ import annotations

import copy
import json
import threading
import time
import traceback
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from workbench.agent.anthropic_provider import AnthropicProvider
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
from workbench.agent.provider import Interrupted, MissingKeyError, ProviderError

from .fake_anthropic import FakeAnthropic, Reply, Timing, ToolUse, api_error, overloaded, rate_limited, server_error
from .fake_anthropic import text as text_reply
from .fake_anthropic import tool as tool_reply

KEY = "sk-ant-test-0123456789abcdef"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def provider(fake: FakeAnthropic) -> AnthropicProvider:
    return AnthropicProvider(api_key=KEY, base_url=fake.url, max_retries=3, backoff_base_s=0.001)


def make_request() -> ModelRequest:
    tools = [
        ToolSpec("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}),
        ToolSpec("bash", "Run a command.", {"type": "object", "properties": {"cmd": {"type": "string"}}}),
    ]
    messages = [
        Message("user", [TextBlock("Write the kernel.")]),
        Message("assistant", [TextBlock("Reading first."), ToolUseBlock("toolu_1", "read", {"path": "task.md"})]),
        Message("user", [ToolResultBlock("toolu_1", "# Task\nAdd two vectors.")]),
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


def complete(provider: AnthropicProvider, recorder: Recorder, cancel: threading.Event | None = None) -> ModelResponse:
    return provider.complete(make_request(), recorder.delta, cancel or threading.Event(), recorder.retry)


def test_text_and_tool_use_stream_in_order_and_assemble(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    uses = [ToolUse("bash", {"cmd": "python bench.py --size 4096"}), ToolUse("read", {"path": "kernel.py"})]
    fake.push(Reply(text="Let me benchmark it.", tool_uses=uses, chunk=5))
    recorder = Recorder()

    response = complete(provider, recorder)

    kinds = [(d.kind, d.index) for d in recorder.deltas]
    assert kinds == sorted(kinds, key=lambda k: k[1])  # block by block, as streamed
    assert "".join(d.text for d in recorder.deltas if d.kind == "text") == "Let me benchmark it."
    starts = [d for d in recorder.deltas if d.kind == "tool_start"]
    assert [(d.index, d.tool_name) for d in starts] == [(1, "bash"), (2, "read")]
    for start, use in zip(starts, uses):
        fragments = [d.text for d in recorder.deltas if d.kind == "tool_input" and d.index == start.index]
        assert len(fragments) > 1 and json.loads("".join(fragments)) == use.input
    assert response.content == [
        TextBlock("Let me benchmark it."),
        ToolUseBlock(starts[0].tool_id or "", "bash", uses[0].input),
        ToolUseBlock(starts[1].tool_id or "", "read", uses[1].input),
    ]
    assert response.stop_reason == "tool_use"
    assert response.raw_id == "msg_fake_1" and response.retries == 0 and response.latency_s > 0


def test_one_connection_serves_request_after_request(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(text_reply("one"), tool_reply("bash", {"cmd": "ls"}), text_reply("three"))
    for _ in range(3):
        complete(provider, Recorder())
    assert len({r.client_port for r in fake.requests}) == 1


def test_usage_carries_cache_reads_and_writes(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(
        Reply(
            text="ok", input_tokens=12, output_tokens=42, cache_creation_input_tokens=300, cache_read_input_tokens=4000
        )
    )
    response = complete(provider, Recorder())
    assert response.usage == Usage(input_tokens=12, output_tokens=42, cache_read_tokens=4000, cache_write_tokens=300)


def test_the_conversation_is_sent_as_given(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(text_reply("ok"))
    request = make_request()
    complete(provider, Recorder())
    body = strip_cache_control(fake.requests[0].body)
    assert body["messages"] == [m.to_dict() for m in request.messages]
    assert body["tools"] == [t.to_dict() for t in request.tools]
    assert body["system"] == [{"type": "text", "text": request.system}]
    assert body["model"] == "claude-sonnet-4-6" and body["max_tokens"] == 1000 and body["stream"] is True


def test_cache_breakpoints_cover_the_prefix_without_touching_the_request(
    fake: FakeAnthropic, provider: AnthropicProvider
) -> None:
    fake.push(text_reply("ok"), text_reply("ok"))
    request = make_request()
    before = copy.deepcopy(request)

    provider.complete(request, lambda d: None, threading.Event())

    body = fake.requests[0].body
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in body["tools"][0]
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # the previous user turn
    assert count_cache_control(body) == 4
    assert request == before

    # A long conversation still gets at most four; a bare one only the message's.
    bare = ModelRequest("", [], [Message("user", [TextBlock(f"line {i}")]) for i in range(9)])
    provider.complete(bare, lambda d: None, threading.Event())
    body = fake.requests[1].body
    assert "system" not in body and "tools" not in body
    assert count_cache_control(body) == 2
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.parametrize(
    "failure",
    [
        overloaded(),
        server_error(),
        Reply(stream_error="overloaded_error"),
        Reply(text="cut off here", timing=Timing(cut_after=5)),
        Reply(text="ended early", timing=Timing(cut_after=5, clean_cut=True)),
        Reply(text="mangled", garbage=True),
    ],
    ids=["529", "500", "error-event", "cut-stream", "ended-early", "garbage-data"],
)
def test_a_transient_failure_is_retried_and_reported(
    fake: FakeAnthropic, provider: AnthropicProvider, failure: Any
) -> None:
    fake.push(failure, text_reply("recovered"))
    recorder = Recorder()

    response = complete(provider, recorder)

    assert response.content == [TextBlock("recovered")] and response.retries == 1
    assert [attempt for attempt, _, _ in recorder.retries] == [1]
    assert len(fake.requests) == 2
    assert fake.requests[0].body == fake.requests[1].body  # the whole request again


def test_rate_limit_retry_waits_for_retry_after(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(rate_limited(retry_after="0.2"), text_reply("ok"))
    recorder = Recorder()
    started = time.monotonic()

    complete(provider, recorder)

    ((attempt, reason, delay),) = recorder.retries
    assert attempt == 1 and "429" in reason and "rate_limit_error" in reason
    assert delay >= 0.2 and time.monotonic() - started >= 0.2


def test_gives_up_after_max_retries(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(*[server_error()] * 4)
    recorder = Recorder()
    with pytest.raises(ProviderError, match="gave up after 3 retries.*500"):
        complete(provider, recorder)
    assert [a for a, _, _ in recorder.retries] == [1, 2, 3] and len(fake.requests) == 4


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
    ],
)
def test_client_errors_fail_at_once_with_the_api_message(
    fake: FakeAnthropic, provider: AnthropicProvider, status: int, kind: str
) -> None:
    fake.push(api_error(status, kind, "the API's own words"), text_reply("never sent"))
    recorder = Recorder()
    with pytest.raises(ProviderError, match=f"{status} {kind}: the API's own words"):
        complete(provider, recorder)
    assert recorder.retries == [] and len(fake.requests) == 1


def test_cancel_mid_stream_interrupts_promptly(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(Reply(text="a long answer that stalls", chunk=2, timing=Timing(delay_s=30, slow_from=4)))
    recorder, cancel = Recorder(), threading.Event()
    outcome: list[BaseException] = []
    worker = threading.Thread(target=lambda: capture(outcome, lambda: complete(provider, recorder, cancel)))
    worker.start()
    assert recorder.first_delta.wait(5)

    started = time.monotonic()
    cancel.set()
    worker.join(5)

    assert time.monotonic() - started < 2
    assert isinstance(outcome[0], Interrupted) and outcome[0].partial_text == "a "
    assert wait_until(lambda: not any(t.name == "provider-stream" for t in threading.enumerate()))


def test_cancel_while_waiting_for_headers_interrupts_promptly(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(Reply(text="late", timing=Timing(wait_s=30)))
    cancel = threading.Event()
    threading.Thread(target=lambda: fake.wait_for_requests(1) and cancel.set()).start()
    started = time.monotonic()
    with pytest.raises(Interrupted):
        complete(provider, Recorder(), cancel)
    assert time.monotonic() - started < 2


def test_cancel_during_backoff_interrupts_promptly(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(rate_limited(retry_after="30"))
    cancel = threading.Event()
    started = time.monotonic()
    with pytest.raises(Interrupted):
        provider.complete(make_request(), lambda d: None, cancel, lambda *retry: cancel.set())
    assert time.monotonic() - started < 2


def test_max_tokens_argument_replaces_the_requests(fake: FakeAnthropic) -> None:
    fake.push(text_reply("ok"))
    provider = AnthropicProvider("claude-haiku-4-5", api_key=KEY, base_url=fake.url, max_tokens=321)
    provider.complete(make_request(), lambda d: None, threading.Event())
    assert fake.requests[0].body["max_tokens"] == 321 and fake.requests[0].body["model"] == "claude-haiku-4-5"


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingKeyError, match="ANTHROPIC_API_KEY is not set"):
        AnthropicProvider()


def test_the_key_travels_only_in_the_auth_header(fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    provider = AnthropicProvider(base_url=fake.url, max_retries=1, backoff_base_s=0.001)
    # A server that echoes the key back must not get it into our messages.
    fake.push(tool_reply("bash", {"cmd": "ls"}), api_error(401, "authentication_error", f"invalid x-api-key {KEY}"))
    fake.push(server_error(), api_error(500, "api_error", f"boom {KEY}"))
    provider.complete(make_request(), lambda d: None, threading.Event())
    errors = []
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            provider.complete(make_request(), lambda d: None, threading.Event())
        errors.append(caught.value)

    for recorded in fake.requests:
        carrying = [name for name, value in recorded.headers.items() if KEY in value]
        assert carrying in (["x-api-key"], ["authorization"])  # this SDK version sends it as a Bearer token
        assert KEY not in recorded.raw.decode()
    for error in errors:
        assert KEY not in "".join(traceback.format_exception(error)) and KEY not in repr(error)
    assert KEY not in repr(provider)


def test_the_fake_answers_plain_requests_like_the_api(fake: FakeAnthropic) -> None:
    fake.push(tool_reply("bash", {"cmd": "ls"}, text="Looking."))
    client = anthropic.Anthropic(api_key=KEY, base_url=fake.url, max_retries=0)
    message = client.messages.create(
        model="claude-haiku-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.stop_reason == "tool_use" and message.model == "claude-haiku-4-5"


# -- helpers --


def strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def count_cache_control(value: Any) -> int:
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(count_cache_control(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_cache_control(v) for v in value)
    return 0


def capture(outcome: list[BaseException], call: Any) -> None:
    try:
        call()
    except BaseException as exc:
        outcome.append(exc)


def wait_until(condition: Any, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_an_attempt_cut_after_it_began_is_counted_as_billed(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    # message_start carried the prompt's tokens: the cut attempt was paid for, though it is sent again
    fake.push(Reply(text="cut off here", input_tokens=700, timing=Timing(cut_after=5)), text_reply("recovered"))
    response = complete(provider, Recorder())
    assert response.retries == 1 and response.usage.input_tokens == 100
    assert response.retried_usage.input_tokens == 700 and response.retried_usage.output_tokens == 1
    assert response.retried_unmetered == 0


def test_an_attempt_refused_before_it_began_costs_nothing(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(overloaded(), text_reply("recovered"))
    response = complete(provider, Recorder())
    assert response.retries == 1 and vars(response.retried_usage) == vars(Usage())


def test_giving_up_keeps_what_the_cut_attempts_were_billed(fake: FakeAnthropic, provider: AnthropicProvider) -> None:
    fake.push(*[Reply(text="cut", input_tokens=300, timing=Timing(cut_after=3))] * 4)
    with pytest.raises(ProviderError) as failure:
        complete(provider, Recorder())
    assert failure.value.spent is not None and failure.value.spent.usage.input_tokens == 4 * 300
