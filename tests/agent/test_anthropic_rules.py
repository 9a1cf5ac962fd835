"""The fake Messages API's rules: each refuses what the real API refuses, with its message, and lets a valid request
through; the prompt cache reads a repeated prefix; the context window is enforced."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .anthropic_rules import MIN_CACHEABLE_TOKENS, Limits, PromptCache, RuleBroken, check_request


def valid() -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "system": [{"type": "text", "text": "You write kernels."}],
        "tools": [{"name": "bash", "description": "run", "input_schema": {"type": "object", "properties": {}}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Write the kernel."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Looking."},
                                              {"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                                         {"type": "text", "text": "A note."}]},
        ],
    }  # fmt: skip


def broken(change) -> str:
    body = valid()
    change(body)
    with pytest.raises(RuleBroken) as error:
        check_request(body, Limits())
    return str(error.value)


def test_a_valid_request_passes_and_is_counted():
    assert check_request(valid(), Limits()) > 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.update(temperature_x=1), "temperature_x: Extra inputs are not permitted"),
        (lambda b: b.pop("max_tokens"), "max_tokens: Field required"),
        (lambda b: b.update(max_tokens=100_000), "maximum allowed number of output tokens"),
        (lambda b: b["messages"][1]["content"].insert(0, {"type": "text", "text": ""}), "must be non-empty"),
        (
            lambda b: b["messages"][1]["content"].__setitem__(0, {"type": "text", "text": " \n"}),
            "must contain non-whitespace text",
        ),
        (lambda b: b["messages"].insert(2, {"role": "assistant", "content": []}), "must have non-empty content"),
        (lambda b: b["messages"][2]["content"].pop(0), "`tool_use` ids were found without `tool_result` blocks"),
        (lambda b: b["messages"][2]["content"].reverse(), "tool_result blocks must come before any other content"),
        (lambda b: b["messages"][2]["content"][0].update(tool_use_id="t9"), "unexpected `tool_use_id`"),
        (lambda b: b["messages"].pop(), "`tool_use` ids were found without `tool_result` blocks"),
        (lambda b: b["messages"].insert(0, {"role": "assistant", "content": "Hi."}), "the first message must use"),
        (lambda b: b["messages"][0].update(name="x"), "messages.0.name: Extra inputs are not permitted"),
        (lambda b: b["tools"][0].update(name="bad name"), "String should match pattern"),
        (lambda b: b.update(thinking={"type": "enabled", "budget_tokens": 512}), "greater than or equal to 1024"),
        (lambda b: b.update(thinking={"type": "enabled", "budget_tokens": 2048}), "greater than `thinking.budget"),
    ],
    ids=[
        "extra-field",
        "no-max-tokens",
        "max-tokens-bound",
        "empty-text",
        "whitespace-text",
        "empty-assistant",
        "unanswered-tool-use",
        "tool-result-after-text",
        "stray-tool-result",
        "ends-on-tool-use",
        "assistant-first",
        "extra-message-field",
        "tool-name",
        "thinking-budget",
        "thinking-over-max-tokens",
    ],  # fmt: skip
)
def test_each_rule_refuses_what_the_real_api_refuses(change, message):
    assert message in broken(change)


def test_consecutive_user_messages_are_one_turn_as_on_the_real_api():
    body = valid()
    body["messages"][2]["content"].pop()  # the note as a message of its own after the tool results: combined, fine
    body["messages"].append({"role": "user", "content": "A note."})
    check_request(body, Limits())
    body["messages"][2:] = [{"role": "user", "content": "A note."}, body["messages"][2]]  # the note first: refused
    with pytest.raises(RuleBroken, match="tool_result blocks must come before"):
        check_request(body, Limits())


def test_at_most_four_cache_breakpoints():
    body = valid()
    for block in (
        body["system"][0],
        body["tools"][0],
        body["messages"][0]["content"][0],
        body["messages"][2]["content"][0],
    ):
        block["cache_control"] = {"type": "ephemeral"}
    assert check_request(copy.deepcopy(body), Limits())
    body["messages"][1]["content"][0]["cache_control"] = {"type": "ephemeral"}
    with pytest.raises(RuleBroken, match="A maximum of 4 blocks with cache_control may be provided. Found 5."):
        check_request(body, Limits())


def test_the_context_window_counts_the_prompt_and_max_tokens():
    body = valid()
    body["messages"][0]["content"][0]["text"] = "x" * 40_000  # ~10k tokens
    with pytest.raises(RuleBroken, match=r"prompt is too long: \d+ tokens > 8000 maximum"):
        check_request(body, Limits(context_window=8000))
    with pytest.raises(RuleBroken, match="input length and `max_tokens` exceed context limit"):
        check_request({**body, "max_tokens": 5000}, Limits(context_window=14_000))


def test_a_repeated_prefix_is_read_from_the_cache_and_a_short_one_is_not_cached():
    cache = PromptCache()
    body = valid()
    body["messages"][0]["content"][0]["text"] = "context " * (MIN_CACHEABLE_TOKENS * 2)
    body["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    tokens = check_request(body, Limits())
    uncached, read, written = cache.account(body, tokens)
    assert read == 0 and written > MIN_CACHEABLE_TOKENS and uncached + written == tokens
    uncached, read, written = cache.account(body, tokens)
    assert read > MIN_CACHEABLE_TOKENS and written == 0 and uncached + read == tokens
    short = valid()
    short["system"][0]["cache_control"] = {"type": "ephemeral"}
    assert cache.account(short, check_request(short, Limits()))[1:] == (0, 0)
