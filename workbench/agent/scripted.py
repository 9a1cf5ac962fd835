"""A provider that plays given responses: from a script file, or the model responses of a saved
session. It ships in the package for tests, demos and replays; it streams like a real model (text in
small deltas, tool input as partial JSON) and honours cancellation."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.conversation import (
    Delta,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    block_from_dict,
)
from workbench.agent.provider import DeltaCallback, Interrupted, ProviderError, RetryCallback

CHUNK = 24  # characters per streamed delta


@dataclass
class ScriptedTurn:
    content: list[dict[str, Any]]
    stop_reason: str | None = None
    usage: dict[str, int] | None = None
    delay_s: float = 0.0  # pause between deltas, to let tests and demos interrupt a "stream"


def load_script(path: Path) -> list[ScriptedTurn]:
    """A script: a JSON list of turns `{"content": [blocks], "stop_reason": ..., "usage": ..., "delay_s": ...}`.
    (A saved session played back as a script is read by the session layer: session/specs.py.)"""
    if path.is_dir() or path.name == "events.jsonl":
        raise ValueError(f"{path}: a saved session, not a script file (the session layer plays sessions back)")
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a script ({exc})") from None
    if not isinstance(raw, list):
        raise ValueError(f"{path}: a script is a JSON list of turns")
    return [ScriptedTurn(t["content"], t.get("stop_reason"), t.get("usage"), float(t.get("delay_s", 0))) for t in raw]


class ScriptedProvider:
    name = "scripted"

    def __init__(
        self, turns: list[ScriptedTurn], model: str = "scripted", start_at: int = 0, source: str | None = None
    ) -> None:
        self.turns = turns
        self.model = model
        self.source = source  # the script's path, recorded in the session so a resume can find it
        self.position = start_at  # how many turns were played already (a resumed session skips them)

    def complete(
        self,
        request: ModelRequest,
        on_delta: DeltaCallback,
        cancel: threading.Event,
        on_retry: RetryCallback | None = None,
    ) -> ModelResponse:
        if self.position >= len(self.turns):
            raise ProviderError(f"the script has no response left (it holds {len(self.turns)})")
        turn = self.turns[self.position]
        started = time.monotonic()
        blocks = [block_from_dict(b) for b in turn.content]
        partial = ""
        for index, block in enumerate(blocks):
            if isinstance(block, ThinkingBlock):  # a saved session's thinking streams as it did, apart from the reply
                for i in range(0, len(block.thinking), CHUNK):
                    self._tick(turn, cancel, partial)
                    on_delta(Delta("thinking", index, block.thinking[i : i + CHUNK]))
            elif isinstance(block, TextBlock):
                for i in range(0, max(len(block.text), 1), CHUNK):
                    self._tick(turn, cancel, partial)
                    piece = block.text[i : i + CHUNK]
                    partial += piece
                    on_delta(Delta("text", index, piece))
            elif isinstance(block, ToolUseBlock):
                self._tick(turn, cancel, partial)
                on_delta(Delta("tool_start", index, tool_name=block.name, tool_id=block.id))
                encoded = json.dumps(block.input)
                for i in range(0, len(encoded), CHUNK):
                    self._tick(turn, cancel, partial)
                    on_delta(Delta("tool_input", index, encoded[i : i + CHUNK]))
        self.position += 1
        usage = Usage(**turn.usage) if turn.usage else _estimated_usage(request, blocks)
        stop = turn.stop_reason or ("tool_use" if any(isinstance(b, ToolUseBlock) for b in blocks) else "end_turn")
        return ModelResponse(blocks, stop, usage, self.model, latency_s=time.monotonic() - started)

    @staticmethod
    def _tick(turn: ScriptedTurn, cancel: threading.Event, partial: str) -> None:
        if turn.delay_s:
            cancel.wait(turn.delay_s)
        if cancel.is_set():
            raise Interrupted(partial)


def _estimated_usage(request: ModelRequest, blocks: list[Any]) -> Usage:
    """A plausible token count (about 4 characters a token), so demos show moving numbers; a scripted
    session's log says it is scripted, so nobody takes these for a real model's usage."""
    prompt = len(request.system) + sum(len(json.dumps(m.to_dict())) for m in request.messages)
    output = sum(len(json.dumps(b.to_dict())) for b in blocks)
    return Usage(input_tokens=prompt // 4, output_tokens=output // 4)
