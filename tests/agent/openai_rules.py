"""The Chat Completions API's rules for a request, as OpenAI's service enforces them (and vLLM / SGLang mostly do),
for the fake server to enforce too: each is a 400 there, with its message's wording where we have seen it.

The context window is counted with the same deterministic estimate as the Anthropic rules (about 4 characters a
token). Automatic prefix caching is modelled as OpenAI's: a request whose first 1024+ tokens repeat an earlier
request's prefix reports the repeated part, in 128-token steps, as `prompt_tokens_details.cached_tokens`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from .anthropic_rules import Limits, RuleBroken, estimate_tokens

TOP_LEVEL = {"model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options", "tools",
             "tool_choice", "temperature", "top_p", "stop", "seed", "reasoning_effort", "parallel_tool_calls",
             "response_format", "user", "n", "presence_penalty", "frequency_penalty", "logprobs",
             "metadata"}  # fmt: skip
ROLES = {"system", "developer", "user", "assistant", "tool"}
MIN_CACHED_TOKENS, CACHE_STEP = 1024, 128
REASONING_EFFORTS = ("low", "medium", "high")

__all__ = ["Limits", "PrefixCache", "RuleBroken", "check_request"]


def check_request(body: dict[str, Any], limits: Limits, takes_reasoning_effort: bool = True) -> int:
    """The request's prompt tokens, after every rule is checked; RuleBroken names the first rule it breaks. A server
    or model that does not reason (`takes_reasoning_effort=False`) refuses the field, as OpenAI's do."""
    extra = sorted(set(body) - TOP_LEVEL)
    if not takes_reasoning_effort and "reasoning_effort" in body:
        extra = sorted({*extra, "reasoning_effort"})
    if extra:
        raise RuleBroken(f"Unrecognized request argument supplied: {extra[0]}")
    if not isinstance(body.get("model"), str):
        raise RuleBroken("you must provide a model parameter")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RuleBroken("[] is too short - 'messages'")
    if "max_tokens" in body and "max_completion_tokens" in body:
        raise RuleBroken("max_tokens and max_completion_tokens cannot both be set")
    wanted = body.get("max_completion_tokens", body.get("max_tokens"))
    if wanted is not None and (not isinstance(wanted, int) or isinstance(wanted, bool) or wanted < 1):
        raise RuleBroken(f"Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1, "
                         f"but got {wanted} instead.")  # fmt: skip
    if wanted is not None and wanted > limits.max_output_tokens:
        raise RuleBroken(
            f"max_tokens is too large: {wanted}. This model supports at most {limits.max_output_tokens} "
            "completion tokens, whereas you provided {wanted}.".replace("{wanted}", str(wanted))
        )
    if "stream_options" in body and not body.get("stream"):
        raise RuleBroken("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in REASONING_EFFORTS:
        raise RuleBroken(f"Invalid value: '{effort}'. Supported values are: 'low', 'medium', and 'high'.")
    _check_tools(body.get("tools") or [])
    _check_messages(messages)
    tokens = estimate_tokens([body.get("tools") or [], messages])
    if tokens + (wanted or 0) > limits.context_window:
        raise RuleBroken(f"This model's maximum context length is {limits.context_window} tokens. However, you "
                         f"requested {tokens + (wanted or 0)} tokens ({tokens} in the messages, {wanted or 0} in the "
                         "completion). Please reduce the length of the messages or completion.")  # fmt: skip
    return tokens


def _check_tools(tools: list[Any]) -> None:
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict):
            raise RuleBroken(f"Invalid value for 'tools[{i}].type'")
        if not isinstance(function.get("name"), str) or not function["name"]:
            raise RuleBroken(f"Missing required parameter: 'tools[{i}].function.name'.")
        parameters = function.get("parameters", {})
        if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
            raise RuleBroken(f"Invalid schema for function '{function['name']}': schema must be a JSON Schema of "
                             "'type: \"object\"'")  # fmt: skip


def _check_messages(messages: list[Any]) -> None:
    pending: list[str] = []  # tool_call ids the last assistant message asked for and no tool message answered yet
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            raise RuleBroken(f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', "
                             "'function', 'tool', and 'developer'.")  # fmt: skip
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise RuleBroken(f"Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                                 f"message with 'tool_calls'. (messages.[{i}])")  # fmt: skip
            pending.remove(call_id)
            if not isinstance(message.get("content"), str):
                raise RuleBroken(f"Invalid type for 'messages[{i}].content': expected a string.")
            continue
        if pending:
            raise RuleBroken("An assistant message with 'tool_calls' must be followed by tool messages responding to "
                             f"each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                             f"{', '.join(pending)}")  # fmt: skip
        content, calls = message.get("content"), message.get("tool_calls")
        if "reasoning_content" in message:  # DeepSeek and vLLM's reasoning parsers: output only, never input
            raise RuleBroken(f"messages[{i}]: `reasoning_content` is not accepted in input messages; send back only "
                             "the content of an assistant message")  # fmt: skip
        if role == "assistant":
            if content is None and not calls:
                raise RuleBroken(f"Invalid value for 'content': expected a string, got null. (messages.[{i}])")
            for call in calls or []:
                arguments = (call.get("function") or {}).get("arguments")
                try:
                    json.loads(arguments)
                except (TypeError, ValueError):
                    raise RuleBroken(f"messages.[{i}].tool_calls: function arguments must be a JSON string") from None
                pending.append(call.get("id"))
        elif not isinstance(content, (str, list)) or not content:
            raise RuleBroken(f"Invalid 'messages[{i}].content': string too short. Expected a string with minimum "
                             "length 1, but got an empty string instead.")  # fmt: skip
    if pending:
        raise RuleBroken("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                         f"'tool_call_id'. The following tool_call_ids did not have response messages: "
                         f"{', '.join(pending)}")  # fmt: skip


@dataclass
class PrefixCache:
    """OpenAI's automatic prefix caching: the longest earlier prefix a request repeats, in 128-token steps."""

    seen: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def cached_tokens(self, body: dict[str, Any]) -> int:
        text = json.dumps([body.get("tools") or [], body["messages"]], sort_keys=True, separators=(",", ":"))
        with self.lock:
            common = max((_common_prefix(text, other) for other in self.seen[-8:]), default=0)
            self.seen.append(text)
        tokens = common // 4
        return 0 if tokens < MIN_CACHED_TOKENS else tokens - tokens % CACHE_STEP


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix, by bisection over slice comparisons (C speed on long prompts)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low
