"""The canonical conversation as OpenAI chat completions, and a streamed completion assembled back from chunks.

Pure conversion, no I/O: `openai_provider` sends what `chat_body` builds and feeds each chunk it receives to
a `ChunkAssembler`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from workbench.agent.conversation import (
    Block,
    Delta,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)

FINISH_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}


def chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """System prompt, then each message: tool results become role "tool" messages placed first, as the API
    wants them right after the assistant message that called the tools. The model's reasoning is never sent back:
    servers that stream `reasoning_content` refuse it in the messages they are sent."""
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        text = message.text()
        if message.role == "assistant":
            calls = [{"id": b.id, "type": "function", "function": {"name": b.name, "arguments": json.dumps(b.input)}}
                     for b in message.tool_uses()]  # fmt: skip
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
            continue
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                content = f"Error: {block.content}" if block.is_error else block.content
                out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
        if text:
            out.append({"role": "user", "content": text})
    return out


def chat_body(request: ModelRequest, model: str, max_tokens: int, max_tokens_param: str) -> dict[str, Any]:
    """The streamed chat-completions request body for `request`."""
    body: dict[str, Any] = {
        "model": model,
        "messages": chat_messages(request),
        max_tokens_param: max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.reasoning_effort:
        body["reasoning_effort"] = request.reasoning_effort
    if request.tools:
        body["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                           "parameters": t.input_schema}}
                         for t in request.tools]  # fmt: skip
    return body


class ChunkAssembler:
    """Builds the response from streamed chunks, turning each into the Deltas a caller sees."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.raw_id: str | None = None
        self.usage = Usage()
        self.usage_reported = False  # until a chunk carries usage (servers that ignore include_usage send none)
        self.finish_reason: str | None = None
        self._blocks: list[TextBlock | ThinkingBlock | _CallInProgress] = []
        self._calls: dict[int, _CallInProgress] = {}  # by the API's tool-call index

    def feed(self, chunk: dict[str, Any]) -> Iterator[Delta]:
        self.raw_id = chunk.get("id") or self.raw_id
        self.model = chunk.get("model") or self.model
        if chunk.get("usage"):
            usage = chunk["usage"]
            cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
            prompt = usage.get("prompt_tokens") or 0
            self.usage = Usage(prompt - cached, usage.get("completion_tokens") or 0, cache_read_tokens=cached)
            self.usage_reported = True
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            # vLLM, SGLang and DeepSeek stream the reasoning as `reasoning_content`; some newer servers as `reasoning`
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                yield self._reasoning(reasoning)
            if delta.get("content"):
                yield self._text(delta["content"])
            for call in delta.get("tool_calls") or []:
                yield from self._call(call)
            self.finish_reason = choice.get("finish_reason") or self.finish_reason

    def _text(self, text: str) -> Delta:
        if not self._blocks or not isinstance(self._blocks[-1], TextBlock):
            self._blocks.append(TextBlock(""))
        block = self._blocks[-1]
        assert isinstance(block, TextBlock)
        block.text += text
        return Delta("text", len(self._blocks) - 1, text=text)

    def _reasoning(self, text: str) -> Delta:
        # Kept as thinking without a signature: logged and shown, never sent back (conversation.sendable drops it).
        if not self._blocks or not isinstance(self._blocks[-1], ThinkingBlock):
            self._blocks.append(ThinkingBlock("", ""))
        block = self._blocks[-1]
        assert isinstance(block, ThinkingBlock)
        block.thinking += text
        return Delta("thinking", len(self._blocks) - 1, text=text)

    def _call(self, fragment: dict[str, Any]) -> Iterator[Delta]:
        function = fragment.get("function") or {}
        api_index = fragment.get("index", 0)
        call = self._calls.get(api_index)
        if call is None:
            # Some local servers leave out the id; the conversation needs one to pair the result with the call.
            call = _CallInProgress(fragment.get("id") or f"call_{uuid.uuid4().hex[:24]}", function.get("name") or "",
                                   len(self._blocks))  # fmt: skip
            self._calls[api_index] = call
            self._blocks.append(call)
            yield Delta("tool_start", call.index, tool_name=call.name, tool_id=call.id)
        if function.get("arguments"):
            call.parts.append(function["arguments"])
            yield Delta("tool_input", call.index, text=function["arguments"])

    def text(self) -> str:
        return "".join(b.text for b in self._blocks if isinstance(b, TextBlock))

    def response(self) -> ModelResponse:
        content: list[Block] = [b.block() if isinstance(b, _CallInProgress) else b for b in self._blocks]
        reason = FINISH_REASONS.get(self.finish_reason or "stop", self.finish_reason or "end_turn")
        if reason == "end_turn" and self._calls:
            reason = "tool_use"  # some servers say "stop" after calling tools; the calls are what matters
        return ModelResponse(content, reason, self.usage, self.model, raw_id=self.raw_id,
                             usage_reported=self.usage_reported)  # fmt: skip


class _CallInProgress:
    def __init__(self, call_id: str, name: str, index: int) -> None:
        self.id, self.name, self.index = call_id, name, index
        self.parts: list[str] = []

    def block(self) -> ToolUseBlock:
        raw = "".join(self.parts)
        try:
            value = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            value = None
        # Arguments cut short (at the length limit, say) are kept verbatim, for the tool to report.
        return ToolUseBlock(self.id, self.name, value if isinstance(value, dict) else {"_unparsed_input": raw})
