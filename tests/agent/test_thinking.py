"""Extended thinking (Anthropic) and reasoning effort (OpenAI-compatible) through the real clients against the strict
fakes: what is sent, what streams back as thinking apart from the reply, what goes back in the next request and what
the fakes refuse, with the real APIs' errors."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from workbench.agent.anthropic_provider import AnthropicProvider
from workbench.agent.conversation import (
    Delta,
    Message,
    ModelRequest,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    sendable,
)
from workbench.agent.openai_provider import OpenAIProvider
from workbench.agent.pricing import Price, cost
from workbench.agent.provider import ProviderError

from .anthropic_rules import Limits, RuleBroken, check_request, sign
from .fake_anthropic import FakeAnthropic, Reply, ToolUse
from .fake_openai import FakeOpenAI, ToolCall
from .fake_openai import Reply as OpenAIReply

KEY = "sk-test-0123456789abcdef"
TOOLS = [ToolSpec("bash", "Run a command.", {"type": "object", "properties": {"cmd": {"type": "string"}}})]
THOUGHT = "The tail of the last block needs a mask; check the grid first."


@pytest.fixture
def anthropic_fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def provider_for(fake: FakeAnthropic) -> AnthropicProvider:
    return AnthropicProvider(api_key=KEY, base_url=fake.url, max_retries=0, thinking_budget=2048)


def ask(provider: Any, messages: list[Message], **request: Any) -> tuple[Any, list[Delta]]:
    deltas: list[Delta] = []
    response = provider.complete(ModelRequest("You write kernels.", TOOLS, messages, **request), deltas.append,
                                 threading.Event())  # fmt: skip
    return response, deltas


def first_turn(fake: FakeAnthropic, reply: Reply) -> tuple[list[Message], Any, list[Delta]]:
    """The model thinks, then calls bash; the conversation with its result, ready for the next request."""
    fake.push(reply)
    messages = [Message("user", [TextBlock("Write the kernel.")])]
    response, deltas = ask(provider_for(fake), messages, max_tokens=4096, thinking_budget=2048)
    blocks, _ = sendable(response.content, response.stop_reason)
    messages += [Message("assistant", blocks), Message("user", [ToolResultBlock(blocks[-1].id, "ok")])]
    return messages, response, deltas


def test_thinking_is_asked_for_streamed_apart_from_the_reply_and_signed(anthropic_fake):
    reply = Reply(text="Checking.", tool_uses=[ToolUse("bash", {"cmd": "ls"})], thinking=THOUGHT)
    _, response, deltas = first_turn(anthropic_fake, reply)

    assert anthropic_fake.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    thinking = response.content[0]
    assert isinstance(thinking, ThinkingBlock)
    assert (thinking.thinking, thinking.signature) == (THOUGHT, sign(THOUGHT))
    assert response.message().text() == "Checking."  # the thinking is not part of the reply's words
    assert "".join(d.text for d in deltas if d.kind == "thinking") == THOUGHT
    assert "".join(d.text for d in deltas if d.kind == "text") == "Checking."


def test_the_thinking_block_goes_back_unmodified_and_the_next_request_is_accepted(anthropic_fake):
    reply = Reply(text="Checking.", tool_uses=[ToolUse("bash", {"cmd": "ls"})], thinking=THOUGHT)
    messages, _, _ = first_turn(anthropic_fake, reply)
    anthropic_fake.push(Reply(text="Done.", thinking="All good."))
    response, _ = ask(provider_for(anthropic_fake), messages, max_tokens=4096, thinking_budget=2048)

    assert anthropic_fake.rejected == []
    assert anthropic_fake.requests[1].body["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": THOUGHT, "signature": sign(THOUGHT)}  # fmt: skip
    assert response.message().text() == "Done."


def test_a_changed_or_dropped_thinking_block_is_refused_as_the_real_api_refuses_it(anthropic_fake):
    reply = Reply(text="Checking.", tool_uses=[ToolUse("bash", {"cmd": "ls"})], thinking=THOUGHT)
    messages, _, _ = first_turn(anthropic_fake, reply)
    changed = [messages[0], Message("assistant", [ThinkingBlock(THOUGHT + " ", sign(THOUGHT)),
                                                  *messages[1].content[1:]]), messages[2]]  # fmt: skip
    with pytest.raises(ProviderError, match="400 invalid_request_error: .*Invalid `signature` in `thinking` block"):
        ask(provider_for(anthropic_fake), changed, max_tokens=4096, thinking_budget=2048)
    dropped = [messages[0], Message("assistant", messages[1].content[1:]), messages[2]]
    with pytest.raises(ProviderError, match="Expected `thinking` or `redacted_thinking`, but found `text`"):
        ask(provider_for(anthropic_fake), dropped, max_tokens=4096, thinking_budget=2048)
    # Without thinking the same conversation is a valid one: the rule is thinking's.
    anthropic_fake.push(Reply(text="Done."))
    ask(provider_for(anthropic_fake), dropped, max_tokens=4096)
    assert [message for _, message in anthropic_fake.rejected][2:] == []


def test_redacted_thinking_goes_back_as_it_came(anthropic_fake):
    reply = Reply(tool_uses=[ToolUse("bash", {"cmd": "ls"})], thinking=THOUGHT, redacted=True)
    messages, response, deltas = first_turn(anthropic_fake, reply)
    assert isinstance(response.content[0], RedactedThinkingBlock)
    assert not [d for d in deltas if d.kind == "thinking"]  # nothing readable to show
    anthropic_fake.push(Reply(text="Done."))
    ask(provider_for(anthropic_fake), messages, max_tokens=4096, thinking_budget=2048)
    assert anthropic_fake.rejected == []


def test_without_a_budget_in_the_request_nothing_is_thought(anthropic_fake):
    anthropic_fake.push(Reply(text="Hi.", thinking=THOUGHT))
    response, _ = ask(provider_for(anthropic_fake), [Message("user", [TextBlock("Hello.")])], max_tokens=4096)
    assert "thinking" not in anthropic_fake.requests[0].body
    assert [b.type for b in response.content] == ["text"]


def test_thinking_cut_off_before_its_signature_or_alone_is_not_sent_back():
    unsigned = ThinkingBlock("half a thought", "")
    assert sendable([unsigned, TextBlock("Reply.")], "end_turn")[0] == [TextBlock("Reply.")]
    assert sendable([ThinkingBlock("a whole thought", "sig")], "end_turn")[0] == []
    kept = [ThinkingBlock("t", "sig"), ToolUseBlock("toolu_1", "bash", {})]
    assert sendable(kept, "tool_use")[0] == kept


def test_thinking_tokens_are_billed_as_output(anthropic_fake):
    with FakeAnthropic(measure_usage=True) as fake:
        fake.push(Reply(text="Done.", thinking="x" * 4000), Reply(text="Done."))
        thought, _ = ask(provider_for(fake), [Message("user", [TextBlock("Hello.")])], max_tokens=4096,
                         thinking_budget=2048)  # fmt: skip
        plain, _ = ask(provider_for(fake), [Message("user", [TextBlock("Hello.")])], max_tokens=4096)
    assert thought.usage.output_tokens == plain.usage.output_tokens + 1000
    price = {"claude-sonnet-4-6": Price(3.0, 15.0, 3.75, 0.30)}
    extra = cost("claude-sonnet-4-6", thought.usage, price) - cost("claude-sonnet-4-6", plain.usage, price)
    assert extra == pytest.approx(1000 * 15.0 / 1e6, abs=1e-6)  # input alike: the difference is output's price


def rule_body(**changes: Any) -> dict[str, Any]:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [{"role": "user", "content": "Hello."}],
    }
    return {**body, **changes}


@pytest.mark.parametrize(("changes", "message"), [
    ({"thinking": {"type": "enabled", "budget_tokens": 1000}}, "greater than or equal to 1024"),
    ({"max_tokens": 2048}, "`max_tokens` must be greater than `thinking.budget_tokens`"),
    ({"temperature": 0.2}, "`temperature` may only be set to 1 when thinking is enabled"),
    ({"top_k": 5}, "`top_k` must be unset when thinking is enabled"),
    ({"tool_choice": {"type": "any"}}, "Thinking may not be enabled when tool_choice forces tool use"),
    ({"messages": [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t"}, {"type": "text", "text": "Hello."}]},
        {"role": "user", "content": "Go on."}]}, "signature: Field required"),
])  # fmt: skip
def test_the_fake_refuses_what_thinking_forbids(changes, message):
    with pytest.raises(RuleBroken, match=message):
        check_request(rule_body(**changes), Limits())
    for allowed in ({"temperature": 1}, {"tool_choice": {"type": "auto"}}):
        assert check_request(rule_body(**allowed), Limits()) > 0


# -- OpenAI-compatible servers ----------------------------------------------------------------------------------------


def openai_provider(fake: FakeOpenAI, effort: str | None = "high") -> OpenAIProvider:
    return OpenAIProvider("o4-mini", api_key=KEY, base_url=fake.url, max_retries=0, reasoning_effort=effort)


def test_reasoning_effort_is_sent_and_reasoning_content_is_shown_as_thinking_and_never_sent_back():
    with FakeOpenAI() as fake:
        fake.push(OpenAIReply(text="Checking.", reasoning=THOUGHT, tool_calls=[ToolCall("bash", {"cmd": "ls"})]),
                  OpenAIReply(text="Done."))  # fmt: skip
        provider = openai_provider(fake)
        messages = [Message("user", [TextBlock("Write the kernel.")])]
        response, deltas = ask(provider, messages, max_tokens=4096, reasoning_effort="high")
        blocks, _ = sendable(response.content, response.stop_reason)
        messages += [Message("assistant", blocks), Message("user", [ToolResultBlock(blocks[-1].id, "ok")])]
        ask(provider, messages, max_tokens=4096, reasoning_effort="high")

    assert fake.rejected == []
    assert [r.body["reasoning_effort"] for r in fake.requests] == ["high", "high"]
    assert "".join(d.text for d in deltas if d.kind == "thinking") == THOUGHT
    assert response.content[0] == ThinkingBlock(THOUGHT, "") and response.message().text() == "Checking."
    assert THOUGHT not in fake.requests[1].raw.decode()


def test_a_server_that_takes_no_reasoning_effort_is_one_line_naming_the_option():
    with FakeOpenAI() as fake:
        fake.takes_reasoning_effort = False
        with pytest.raises(ProviderError) as error:
            ask(openai_provider(fake), [Message("user", [TextBlock("Hi.")])], max_tokens=512, reasoning_effort="low")
    assert "--reasoning-effort" in str(error.value) and "\n" not in str(error.value)
    assert "Unrecognized request argument supplied: reasoning_effort" in str(error.value)


def test_the_fake_refuses_an_effort_it_does_not_know_and_reasoning_sent_back():
    from .openai_rules import Limits as OpenAILimits
    from .openai_rules import check_request as check_openai

    body = {"model": "o4-mini", "messages": [{"role": "user", "content": "Hi."}], "reasoning_effort": "max"}
    with pytest.raises(RuleBroken, match="Supported values are: 'low', 'medium', and 'high'"):
        check_openai(body, OpenAILimits())
    back = [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": "Hello.", "reasoning_content": "t"},
            {"role": "user", "content": "Go on."}]  # fmt: skip
    with pytest.raises(RuleBroken, match="reasoning_content"):
        check_openai({"model": "o4-mini", "messages": back}, OpenAILimits())


def test_an_effort_outside_low_medium_high_is_refused_when_the_provider_is_made():
    with pytest.raises(ValueError, match="low, medium, high"):
        OpenAIProvider("o4-mini", api_key=KEY, reasoning_effort="max")
    with pytest.raises(ValueError, match="at least 1024"):
        AnthropicProvider(api_key=KEY, thinking_budget=512)


def test_a_scripted_turn_with_thinking_streams_it_as_thinking():
    from workbench.agent.scripted import ScriptedProvider, ScriptedTurn

    content = [ThinkingBlock(THOUGHT, "sig").to_dict(), {"type": "text", "text": "Done."}]
    response, deltas = ask(ScriptedProvider([ScriptedTurn(content)]), [Message("user", [TextBlock("Go.")])])
    assert "".join(d.text for d in deltas if d.kind == "thinking") == THOUGHT
    assert "".join(d.text for d in deltas if d.kind == "text") == "Done."
    assert response.content[0] == ThinkingBlock(THOUGHT, "sig")
