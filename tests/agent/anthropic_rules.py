"""The Messages API's rules for a request, as the real service enforces them, for the fake server to enforce too.

A fake that accepts what the real API rejects proves nothing, so every rule below is one the real API answers with
a 400 `invalid_request_error` (the messages are the real ones' wording, where we have seen them). Consecutive
messages of one role are combined into one turn, as the real API does, before the tool_use / tool_result rules apply.
The context window is counted with a deterministic estimate (`estimate_tokens`: about 4 characters a token, as the
real tokenizer is on English and code) so that a test can grow a session past it on purpose.

Extended thinking is held to its rules: a budget of at least 1024 tokens and under max_tokens, no temperature but 1
and no top_k, no tool_choice that forces a tool; thinking blocks come back exactly as they were sent (the fake signs
each one, `sign`, and refuses a block whose signature is missing or does not match its text); and with thinking on,
the assistant turn whose tool_use the last user turn answers must begin with a thinking or redacted_thinking block.

Prompt caching is modelled too: each `cache_control` breakpoint caches the request's prefix up to and including its
block (tools, then system, then messages, in that order); a later request whose prefix up to a breakpoint is the same
reads it from the cache (`cache_read_input_tokens`) for five minutes, and a prefix shorter than the model's minimum
(1024 tokens for Sonnet and Opus) is not cached, as on the real service.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

TOP_LEVEL = {"model", "messages", "max_tokens", "system", "stop_sequences", "stream", "temperature", "top_p", "top_k",
             "tools", "tool_choice", "metadata", "thinking", "service_tier", "context_management"}  # fmt: skip
BLOCK_TYPES = {"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"}
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
MAX_CACHE_BREAKPOINTS = 4
MIN_CACHEABLE_TOKENS = 1024
CACHE_TTL_S = 300.0
SIGNING_KEY = b"fake-anthropic-thinking"  # the fake's own: a client cannot forge a signature without it
FINAL_THINKING = ("Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a "
                  "final `assistant` message must start with a thinking block (preceeding the lastmost set of "
                  "`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. "
                  "To avoid this requirement, disable `thinking`. Please consult our documentation at "
                  "https://docs.claude.com/en/docs/build-with-claude/extended-thinking")  # fmt: skip


def sign(text: str) -> str:
    """The signature the fake gives a thinking block (or the opaque data of a redacted one): an HMAC of its text."""
    return base64.b64encode(hmac.new(SIGNING_KEY, text.encode(), hashlib.sha256).digest()).decode()


def redacted_data(text: str) -> str:
    """Opaque data for redacted thinking, which only the fake can have made."""
    payload = base64.b64encode(text.encode()).decode()
    return f"{payload}.{sign(payload)}"


class RuleBroken(Exception):
    """What the real API would answer 400 to, with its message."""


@dataclass
class Limits:
    context_window: int = 200_000
    max_output_tokens: int = 64_000


def estimate_tokens(value: Any) -> int:
    """A deterministic token count of any JSON value: about four characters a token, at least one a block."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
    return max(1, (len(text) + 3) // 4)


def check_request(body: dict[str, Any], limits: Limits) -> int:
    """The request's input tokens, after every rule is checked; RuleBroken names the first rule it breaks."""
    extra = sorted(set(body) - TOP_LEVEL)
    if extra:
        raise RuleBroken(f"{extra[0]}: Extra inputs are not permitted")
    for key, kind in (("model", str), ("max_tokens", int), ("messages", list)):
        if key not in body:
            raise RuleBroken(f"{key}: Field required")
        if not isinstance(body[key], kind) or isinstance(body[key], bool):
            raise RuleBroken(f"{key}: Input should be a valid {kind.__name__}")
    if body["max_tokens"] < 1:
        raise RuleBroken("max_tokens: Input should be greater than or equal to 1")
    if body["max_tokens"] > limits.max_output_tokens:
        raise RuleBroken(f"max_tokens: {body['max_tokens']} > {limits.max_output_tokens}, which is the maximum allowed "
                         f"number of output tokens for {body['model']}")  # fmt: skip
    thinking = _check_thinking(body)
    _check_tools(body.get("tools") or [])
    _check_system(body.get("system"))
    _check_messages(body["messages"])
    if thinking:
        _check_thinking_leads(_combined(body["messages"]))
    breakpoints = sum(1 for block in _all_blocks(body) if isinstance(block, dict) and block.get("cache_control"))
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        raise RuleBroken(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
                         f"Found {breakpoints}.")  # fmt: skip
    tokens = estimate_tokens([body.get("tools") or [], body.get("system") or "", body["messages"]])
    if tokens > limits.context_window:
        raise RuleBroken(f"prompt is too long: {tokens} tokens > {limits.context_window} maximum")
    if tokens + body["max_tokens"] > limits.context_window:
        raise RuleBroken(f"input length and `max_tokens` exceed context limit: {tokens} + {body['max_tokens']} > "
                         f"{limits.context_window}, decrease input length or `max_tokens` and try again")  # fmt: skip
    return tokens


def _check_thinking(body: dict[str, Any]) -> bool:
    """Whether thinking is on, once its settings are checked."""
    thinking = body.get("thinking")
    if thinking is None or thinking.get("type") == "disabled":
        return False
    if thinking.get("type") != "enabled" or not isinstance(thinking.get("budget_tokens"), int):
        raise RuleBroken("thinking: Input tag does not match any of the expected tags: 'enabled', 'disabled'")
    if thinking["budget_tokens"] < 1024:
        raise RuleBroken("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
    if thinking["budget_tokens"] >= body["max_tokens"]:
        raise RuleBroken("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation "
                         "at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-"
                         "window-size")  # fmt: skip
    if body.get("temperature") not in (None, 1, 1.0):
        raise RuleBroken("`temperature` may only be set to 1 when thinking is enabled. Please consult our "
                         "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-"
                         "thinking")  # fmt: skip
    if body.get("top_k") is not None:
        raise RuleBroken("`top_k` must be unset when thinking is enabled. Please consult our documentation at "
                         "https://docs.claude.com/en/docs/build-with-claude/extended-thinking")  # fmt: skip
    if (body.get("tool_choice") or {}).get("type") not in (None, "auto", "none"):
        raise RuleBroken("Thinking may not be enabled when tool_choice forces tool use.")
    return True


def _check_thinking_block(block: dict[str, Any], where: str) -> None:
    """A thinking block comes back as it was sent: its signature must be the one the fake gave its text."""
    if block["type"] == "redacted_thinking":
        data = block.get("data")
        payload, _, signature = data.rpartition(".") if isinstance(data, str) else ("", "", "")
        if not payload or not hmac.compare_digest(signature, sign(payload)):
            raise RuleBroken(f"{where}.data: Invalid `data` in `redacted_thinking` block")
        return
    if not isinstance(block.get("thinking"), str):
        raise RuleBroken(f"{where}.thinking: Field required")
    if not isinstance(block.get("signature"), str):
        raise RuleBroken(f"{where}.signature: Field required")
    if not hmac.compare_digest(block["signature"], sign(block["thinking"])):
        raise RuleBroken(f"{where}: Invalid `signature` in `thinking` block")


def _check_thinking_leads(turns: list[dict[str, Any]]) -> None:
    """With thinking on, the assistant turn whose tool calls the last user turn answers begins with thinking."""
    if len(turns) < 2 or turns[-1]["role"] != "user" or turns[-2]["role"] != "assistant":
        return
    if not any(b["type"] == "tool_result" for b in _blocks(turns[-1])):
        return
    first = (_blocks(turns[-2]) or [{"type": "nothing"}])[0]
    if first["type"] not in ("thinking", "redacted_thinking"):
        raise RuleBroken(f"messages.{len(turns) - 2}.content.0.type: " + FINAL_THINKING.format(found=first["type"]))


def _check_tools(tools: list[Any]) -> None:
    names = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or not TOOL_NAME.match(str(tool.get("name", ""))):
            raise RuleBroken(f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
        if tool["name"] in names:
            raise RuleBroken("tools: Tool names must be unique.")
        names.add(tool["name"])
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise RuleBroken(f"tools.{i}.custom.input_schema.type: Input should be 'object'")


def _check_system(system: Any) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise RuleBroken("system: Input should be a valid string or list")
    for i, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise RuleBroken(f"system.{i}.type: Input should be 'text'")
        _check_text(block, f"system.{i}")


def _check_text(block: dict[str, Any], where: str) -> None:
    text = block.get("text")
    if not isinstance(text, str):
        raise RuleBroken(f"{where}.text: Field required")
    if not text:
        raise RuleBroken(f"{where}: text content blocks must be non-empty")
    if not text.strip():
        raise RuleBroken(f"{where}: text content blocks must contain non-whitespace text")


def _check_messages(messages: list[Any]) -> None:
    if not messages:
        raise RuleBroken("messages: at least one message is required")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise RuleBroken(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        extra = sorted(set(message) - {"role", "content"})
        if extra:
            raise RuleBroken(f"messages.{i}.{extra[0]}: Extra inputs are not permitted")
        content = message.get("content")
        final_assistant = i == len(messages) - 1 and message["role"] == "assistant"
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list) or (not content and not final_assistant):
            raise RuleBroken(f"messages.{i}: all messages must have non-empty content except for the optional final "
                             "assistant message")  # fmt: skip
        for j, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") not in BLOCK_TYPES:
                raise RuleBroken(f"messages.{i}.content.{j}.type: Input tag does not match any of the expected tags")
            if block["type"] == "text":
                _check_text(block, f"messages.{i}.content.{j}")
            if block["type"] in ("tool_use", "thinking", "redacted_thinking") and message["role"] != "assistant":
                raise RuleBroken(f"messages.{i}.content.{j}: `{block['type']}` blocks are only allowed in assistant "
                                 "messages")  # fmt: skip
            if block["type"] in ("thinking", "redacted_thinking"):
                _check_thinking_block(block, f"messages.{i}.content.{j}")
                if block.get("cache_control"):
                    raise RuleBroken(f"messages.{i}.content.{j}.{block['type']}.cache_control: Extra inputs are not "
                                     "permitted")  # fmt: skip
            if block["type"] == "tool_result" and message["role"] != "user":
                raise RuleBroken(f"messages.{i}.content.{j}: `tool_result` blocks are only allowed in user messages")
        if final_assistant and content and content[-1].get("type") == "text" and content[-1]["text"] != \
                content[-1]["text"].rstrip():  # fmt: skip
            raise RuleBroken("messages: final assistant content cannot end with trailing whitespace")
    if messages[0]["role"] != "user":
        raise RuleBroken("messages.0.role: the first message must use the user role")
    _check_tool_pairs(_combined(messages))


def _combined(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive messages of one role as the one turn the real API makes of them: a text message after a tool_result
    message is fine, a tool_result after text in the combined turn is not."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if turns and turns[-1]["role"] == message["role"]:
            turns[-1] = {"role": message["role"], "content": _blocks(turns[-1]) + _blocks(message)}
        else:
            turns.append(message)
    return turns


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def _check_tool_pairs(messages: list[dict[str, Any]]) -> None:
    """Every tool_use is answered by a tool_result in the very next message, before any other block there, and every
    tool_result answers a tool_use of the message just before it."""
    for i, message in enumerate(messages):
        blocks = _blocks(message)
        results = [b for b in blocks if b["type"] == "tool_result"]
        previous = _blocks(messages[i - 1]) if i > 0 else []
        asked = [b.get("id") for b in previous if b["type"] == "tool_use"]
        if message["role"] == "user":
            answered = [b.get("tool_use_id") for b in results]
            stray = [r for r in answered if r not in asked]
            if stray:
                raise RuleBroken(f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                                 f"{stray[0]}. Each `tool_result` block must have a corresponding `tool_use` block in "
                                 "the previous message.")  # fmt: skip
            missing = [a for a in asked if a not in answered]
            if missing:
                raise RuleBroken(f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks "
                                 f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                                 "corresponding `tool_result` block in the next message.")  # fmt: skip
            first_other = next((k for k, b in enumerate(blocks) if b["type"] != "tool_result"), len(blocks))
            if any(b["type"] == "tool_result" for b in blocks[first_other:]):
                raise RuleBroken(f"messages.{i}.content: tool_result blocks must come before any other content")
        ids = [b.get("id") for b in blocks if b["type"] == "tool_use"]
        if len(ids) != len(set(ids)):
            raise RuleBroken(f"messages.{i}.content: `tool_use` ids must be unique")
        if message["role"] == "assistant" and ids and i == len(messages) - 1:
            raise RuleBroken(f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                             f"{', '.join(map(str, ids))}")  # fmt: skip


def _all_blocks(body: dict[str, Any]) -> list[Any]:
    found: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    found += system if isinstance(system, list) else []
    for message in body["messages"]:
        found += _blocks(message)
    return found


@dataclass
class PromptCache:
    """Prefixes cached at cache_control breakpoints, by a hash of the prefix, for CACHE_TTL_S after their last use."""

    entries: dict[str, tuple[int, float]] = field(default_factory=dict)  # digest -> (tokens, last used)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def account(self, body: dict[str, Any], input_tokens: int) -> tuple[int, int, int]:
        """(uncached input tokens, cache read tokens, cache write tokens) of a request, updating the cache."""
        now = time.monotonic()
        read = written = 0
        with self.lock:
            self.entries = {k: v for k, v in self.entries.items() if now - v[1] <= CACHE_TTL_S}
            for digest, tokens in _breakpoint_prefixes(body):
                if tokens < MIN_CACHEABLE_TOKENS:
                    continue
                if digest in self.entries:
                    read = max(read, tokens)
                else:
                    written = max(written, tokens)
                self.entries[digest] = (tokens, now)
        written = max(0, written - read)
        return max(0, input_tokens - read - written), read, written


def _breakpoint_prefixes(body: dict[str, Any]) -> list[tuple[str, int]]:
    """For each cache_control block: a digest of the request's prefix up to it (tools, system, messages), and its
    tokens."""
    sequence: list[Any] = [("model", body["model"])]
    found = []
    system = body.get("system")
    parts: list[tuple[str, Any]] = [("tool", t) for t in body.get("tools") or []]
    parts += [("system", b) for b in (system if isinstance(system, list) else [system] if system else [])]
    for message in body["messages"]:
        parts += [(message["role"], b) for b in _blocks(message)]
    for role, block in parts:
        sequence.append((role, {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict)
                         else block))  # fmt: skip
        if isinstance(block, dict) and block.get("cache_control"):
            text = json.dumps(sequence, sort_keys=True, separators=(",", ":"))
            found.append((hashlib.sha256(text.encode()).hexdigest(), estimate_tokens(sequence[1:])))
    return found
