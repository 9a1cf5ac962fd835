"""The fake Chat Completions API's rules: each refuses what the real API refuses, and a valid request passes; the
prefix cache reports a repeated prefix."""

from __future__ import annotations

from typing import Any

import pytest

from .openai_rules import MIN_CACHED_TOKENS, Limits, PrefixCache, RuleBroken, check_request


def valid() -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    return {
        "model": "gpt-4.1",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 1000,
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
        "messages": [
            {"role": "system", "content": "You write kernels."},
            {"role": "user", "content": "Write the kernel."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.update(foo=1), "Unrecognized request argument supplied: foo"),
        (lambda b: b.update(max_tokens=10), "cannot both be set"),
        (lambda b: b.update(max_completion_tokens=10**6), "max_tokens is too large"),
        (lambda b: b.pop("stream"), "only allowed when 'stream' is enabled"),
        (lambda b: b.update(reasoning_effort="extreme"), "Supported values are"),
        (lambda b: b["messages"].pop(), "did not have response messages: c1"),
        (lambda b: b["messages"][3].update(tool_call_id="c9"), "must be a response to a preceeding message"),
        (lambda b: b["messages"][2].update(tool_calls=None), "expected a string, got null"),
        (lambda b: b["messages"][2]["tool_calls"][0]["function"].update(arguments="{bad"), "must be a JSON string"),
        (lambda b: b["messages"][1].update(content=""), "string too short"),
        (lambda b: b["messages"].insert(3, {"role": "user", "content": "hi"}), "did not have response messages"),
    ],
    ids=[
        "extra-field",
        "both-max",
        "max-bound",
        "stream-options",
        "effort",
        "unanswered",
        "stray-tool",
        "null-assistant",
        "bad-arguments",
        "empty-user",
        "user-before-tool",
    ],  # fmt: skip
)
def test_each_rule_refuses_what_the_real_api_refuses(change, message):
    body = valid()
    check_request(body, Limits())
    change(body)
    with pytest.raises(RuleBroken, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_request(body, Limits())


def test_the_context_window_counts_the_messages_and_the_completion():
    body = valid()
    body["messages"][1]["content"] = "x" * 40_000
    with pytest.raises(RuleBroken, match="maximum context length is 10000 tokens"):
        check_request(body, Limits(context_window=10_000))


def test_a_repeated_prefix_is_reported_cached_in_128_token_steps():
    cache = PrefixCache()
    body = valid()
    body["messages"][1]["content"] = "context " * (MIN_CACHED_TOKENS * 2)
    assert cache.cached_tokens(body) == 0
    body["messages"].append({"role": "user", "content": "more"})
    cached = cache.cached_tokens(body)
    assert cached >= MIN_CACHED_TOKENS and cached % 128 == 0
