"""The conversation in the Messages API's shape (the canonical form every provider converts from).

Blocks are typed dataclasses with `to_dict`/`from_dict` in the Anthropic wire shape, so a session log
holds exactly what was sent and received, and replay rebuilds the same conversation from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass
class TextBlock:
    text: str
    type: Literal["text"] = "text"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}


@dataclass
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": self.content,
                "is_error": self.is_error}  # fmt: skip


@dataclass
class ThinkingBlock:
    """The model's reasoning before its reply. Anthropic's extended thinking carries a `signature` the API checks
    against the text when the block comes back: both go back exactly as they came, or the request is refused. An
    OpenAI-compatible server's `reasoning_content` has none: it is shown and logged, never sent back."""

    thinking: str
    signature: str
    type: Literal["thinking"] = "thinking"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}


@dataclass
class RedactedThinkingBlock:
    """Thinking the API's safety systems encrypted: opaque `data`, sent back as it came."""

    data: str
    type: Literal["redacted_thinking"] = "redacted_thinking"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "redacted_thinking", "data": self.data}


Block = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock
THINKING_BLOCKS = (ThinkingBlock, RedactedThinkingBlock)


def block_from_dict(data: dict[str, Any]) -> Block:
    kind = data.get("type")
    if kind == "text":
        return TextBlock(data["text"])
    if kind == "tool_use":
        return ToolUseBlock(data["id"], data["name"], dict(data.get("input") or {}))
    if kind == "tool_result":
        content = data.get("content", "")
        if isinstance(content, list):  # the API also allows a list of text blocks
            content = "".join(part.get("text", "") for part in content)
        return ToolResultBlock(data["tool_use_id"], content, bool(data.get("is_error", False)))
    if kind == "thinking":
        return ThinkingBlock(data["thinking"], data.get("signature") or "")
    if kind == "redacted_thinking":
        return RedactedThinkingBlock(data["data"])
    raise ValueError(f"unknown content block type {kind!r}")


@dataclass
class Message:
    role: Literal["user", "assistant"]
    content: list[Block]

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": [b.to_dict() for b in self.content]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        content = data["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        return cls(data["role"], [block_from_dict(b) for b in content])

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


@dataclass
class ToolSpec:
    """A tool as the model sees it: a name, a description and a JSON schema for its input."""

    name: str
    description: str
    input_schema: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens

    def plus(self, other: Usage) -> Usage:
        total = Usage(**vars(self))
        total.add(other)
        return total

    @property
    def prompt_tokens(self) -> int:
        """Every token of the prompt, cached or not."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


@dataclass
class ModelRequest:
    system: str
    tools: list[ToolSpec]
    messages: list[Message]
    max_tokens: int = 8192
    # How much the model may reason before it answers, for this request: Anthropic's extended thinking budget in
    # tokens (less than max_tokens), an OpenAI-compatible server's reasoning effort. None: the API's default.
    thinking_budget: int | None = None
    reasoning_effort: str | None = None


@dataclass
class ModelResponse:
    content: list[Block]
    stop_reason: str  # end_turn, tool_use, max_tokens, ...
    usage: Usage
    model: str
    latency_s: float = 0.0
    retries: int = 0
    raw_id: str | None = None
    usage_reported: bool = True  # False when the server sent no usage: the tokens, and so the cost, are unknown
    # Attempts that broke off and were sent again: billed as far as the server had reported before the break, and
    # how many of them broke before it reported anything (their tokens, and so the cost, are unknown).
    retried_usage: Usage = field(default_factory=lambda: Usage())
    retried_unmetered: int = 0

    def message(self) -> Message:
        return Message("assistant", list(self.content))


@dataclass
class Delta:
    """A piece of a response as it streams: text, the partial JSON of a tool's input, or the model's thinking (shown
    apart from its words: it is not part of the reply)."""

    kind: Literal["text", "tool_start", "tool_input", "thinking"]
    index: int
    text: str = ""
    tool_name: str | None = None
    tool_id: str | None = None


@dataclass
class Conversation:
    messages: list[Message] = field(default_factory=list)

    def add_user_text(self, text: str) -> None:
        """Append text for the model; merged into a trailing user message so roles keep alternating."""
        if self.messages and self.messages[-1].role == "user":
            self.messages[-1].content.append(TextBlock(text))
        else:
            self.messages.append(Message("user", [TextBlock(text)]))


def sendable(content: list[Block], stop_reason: str | None) -> tuple[list[Block], list[str]]:
    """An assistant reply as it can be sent back in the next request, and the tool calls dropped from it.

    The Messages API refuses empty and whitespace-only text blocks ("text content blocks must contain non-whitespace
    text"), so they go. A reply cut at max_tokens in the middle of a tool call holds a call whose input is not whole
    JSON: it was never run, and resending it every turn costs its tokens again, so it goes too (the loop tells the
    model). Thinking blocks stay, unmodified: with thinking on, the API wants the reply that called tools back with the
    thinking it began with. A thinking block without its signature (a reply cut off before it came) cannot be sent
    back and goes; so does thinking that is all a reply holds, as a message of thinking alone tells the model nothing
    and is not one the API keeps. Live and in the fold of a log alike: resume rebuilds exactly what was sent."""
    kept: list[Block] = []
    dropped: list[str] = []
    for block in content:
        if isinstance(block, TextBlock) and not block.text.strip():
            continue
        if isinstance(block, ThinkingBlock) and not block.signature:
            continue
        if isinstance(block, ToolUseBlock) and stop_reason == "max_tokens" and "_unparsed_input" in block.input:
            dropped.append(block.name)
            continue
        kept.append(block)
    if all(isinstance(block, THINKING_BLOCKS) for block in kept):
        kept = []
    return kept, dropped
