"""A long session against the strict fakes: a scripted model that grows its context like a real one, through the real
Anthropic SDK (and the OpenAI path), for 120 turns in a 55k-token window. Every request must be one the real API
accepts and fit the window; the prompt cache must carry most of the input; the log must rebuild the conversation the
model was last sent; compactions must be logged and shown."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from agent.fake_anthropic import FakeAnthropic, Reply, ToolUse
from agent.fake_anthropic import Limits as AnthropicLimits
from agent.fake_openai import FakeOpenAI, ToolCall
from agent.fake_openai import Limits as OpenAILimits
from agent.fake_openai import Reply as OpenAIReply
from conftest import FIXTURE_ROOT

from workbench.session.events import Compaction, SessionEnd
from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.session.service import Session
from workbench.session.specs import make_limits
from workbench.tasks import load_task

TURNS, WINDOW = 120, 55_000
SOLUTION = (FIXTURE_ROOT / "guidance" / "scale_add" / "expert.py").read_text()
NOTES = "\n".join(f"- observation {i}: the kernel's block size, the mask, the tail and the grid were checked again."
                  for i in range(60))  # fmt: skip


def plan(turn: int) -> dict[str, Any]:
    """What the model does at `turn`: the moves a real session makes, a few of them the ones real APIs punish."""
    if turn == 1:
        return {
            "text": "I will write the kernel.",
            "calls": [("write_file", {"path": "solution.py", "content": SOLUTION})],
        }
    if turn in (30, 75):
        return {"text": "Evaluating.", "calls": [("evaluate", {})]}
    if turn == 60:
        return {"text": "Submitting for now.", "calls": [("submit", {"final": False})]}
    step = turn % 10
    if step == 1:
        return {"text": "Notes.", "calls": [("write_file", {"path": f"notes_{turn}.md", "content": NOTES})]}
    if step == 2:
        return {"text": "Looking at a long output.", "calls": [("bash", {"command": "seq 1 4000"})]}
    if step == 3:
        return {"text": "Reading.", "calls": [("read_file", {"path": "solution.py"}), ("list_files", {})]}
    if step == 4:
        return {"text": "Let me think about the next step before I call anything."}  # a turn without a tool
    if step == 5:
        return {"texts": ["", " \n"], "calls": [("read_file", {"path": "task.md"})]}  # empty and blank blocks
    if step == 6:  # cut off at max_tokens in the middle of a call's input
        return {
            "text": "Writing a big file.",
            "calls": [("write_file", {"path": "big.md", "content": NOTES})],
            "cut": True,
        }
    if step == 7:  # a call whose input is not JSON at all
        return {
            "text": "Editing.",
            "calls": [("edit_file", {"path": "solution.py", "old": "a", "new": "b"})],
            "malformed": True,
        }
    if step == 8:
        return {"text": "Evaluating one workload.", "calls": [("evaluate", {"workloads": ["tinyy"]})]}  # misspelt
    if step == 9:
        return {
            "text": "Checking the notes.",
            "calls": [("bash", {"command": f"wc -l notes_*.md; cat notes_{turn - 8}.md"})],
        }
    return {"text": "Checking the workspace.", "calls": [("bash", {"command": "ls -la; head -c 3000 task.md"})]}


def anthropic_reply(body: dict[str, Any]) -> Reply:
    turn = _turn(body["messages"], "assistant")
    move = plan(turn)
    uses = [ToolUse(name, args) for name, args in move.get("calls", [])]
    options: dict[str, Any] = {"chunk": 400}
    if move.get("cut"):
        options.update(stop_reason="max_tokens", last_tool_json=json.dumps(uses[-1].input)[:300])
    if move.get("malformed"):
        options.update(last_tool_json='{"path": "solution.py", "old": ')
    if "texts" in move:
        return Reply(texts=move["texts"], tool_uses=uses, **options)
    return Reply(text=move["text"], tool_uses=uses, **options)


def openai_reply(body: dict[str, Any]) -> OpenAIReply:
    turn = _turn(body["messages"], "assistant")
    move = plan(turn)
    calls = [ToolCall(name, args) for name, args in move.get("calls", [])]
    options: dict[str, Any] = {"chunk": 400}
    if move.get("cut"):
        options.update(finish_reason="length", last_call_arguments=json.dumps(calls[-1].arguments)[:300])
    if move.get("malformed"):
        options.update(last_call_arguments='{"path": "solution.py", "old": ')
    return OpenAIReply(text="".join(move.get("texts", [])) or move.get("text", ""), tool_calls=calls, **options)


def _turn(messages: list[dict[str, Any]], role: str) -> int:
    """The turn being asked for: the turn counter the loop appends to each user message says the last one done."""
    for message in reversed(messages):
        found = re.findall(r"\[turn (\d+)/", json.dumps(message.get("content")))
        if found:
            return int(found[-1]) + 1
    return 1


def run_session(tmp_path, provider: Any) -> tuple[Any, list]:
    task = load_task("scale_add", FIXTURE_ROOT)
    limits = make_limits(budget=TURNS, context_window=WINDOW)
    session = Session.new(task, set(), provider, limits, mode="interpret", root=tmp_path)
    loop = session.start()
    reason = loop.wait(timeout=900)
    live = [m.to_dict() for m in loop.state.conversation.messages]
    session.close()
    events = read_log(session.folder / "events.jsonl").events
    return reason, live, events


@pytest.fixture
def in_fixture_root(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))


def check_session(reason: str, live: list, events: list, requests: int, rejected: list,
                  cached_share: Callable[[], float]) -> None:  # fmt: skip
    assert rejected == [], rejected[0][1]  # every request one the real API accepts
    assert reason == "budget", [e for e in events if e.kind == "error"]
    assert requests >= TURNS
    end = events[-1]
    assert isinstance(end, SessionEnd) and end.turns == TURNS
    compactions = [e for e in events if isinstance(e, Compaction)]
    assert len(compactions) >= 3 and all(c.tokens_after < c.tokens_before for c in compactions)
    assert [m.to_dict() for m in rebuild(events).conversation.messages] == live  # the log replays exactly
    assert cached_share() >= 0.70


def test_a_120_turn_session_through_the_anthropic_sdk_stays_inside_a_55k_window(tmp_path, in_fixture_root):
    from workbench.agent.anthropic_provider import AnthropicProvider

    with FakeAnthropic(limits=AnthropicLimits(context_window=WINDOW), measure_usage=True) as fake:
        fake.push(*[anthropic_reply] * (TURNS + 10))
        provider = AnthropicProvider("claude-sonnet-4-5", api_key="k", base_url=fake.url, backoff_base_s=0.01)
        reason, live, events = run_session(tmp_path, provider)
        bodies = [r.body for r in fake.requests]

    def cached_share() -> float:
        usage = [e.usage for e in events if e.kind == "model_response"]
        read = sum(u["cache_read_tokens"] for u in usage)
        return read / sum(u["input_tokens"] + u["cache_read_tokens"] + u["cache_write_tokens"] for u in usage)

    check_session(reason, live, events, len(bodies), fake.rejected, cached_share)
    assert max(fake.input_tokens) + 1024 <= WINDOW
    assert all(b["max_tokens"] >= 1024 for b in bodies)


def test_a_120_turn_session_through_the_openai_path_stays_inside_a_55k_window(tmp_path, in_fixture_root):
    from workbench.agent.openai_provider import OpenAIProvider

    with FakeOpenAI(limits=OpenAILimits(context_window=WINDOW, max_output_tokens=16_384), measure_usage=True) as fake:
        fake.push(*[openai_reply] * (TURNS + 10))
        provider = OpenAIProvider("gpt-4.1", api_key="k", base_url=fake.url, backoff_base_s=0.01)
        reason, live, events = run_session(tmp_path, provider)
        bodies = [r.body for r in fake.requests]

    def cached_share() -> float:
        usage = [e.usage for e in events if e.kind == "model_response"]
        return sum(u["cache_read_tokens"] for u in usage) / sum(
            u["input_tokens"] + u["cache_read_tokens"] for u in usage
        )

    check_session(reason, live, events, len(bodies), fake.rejected, cached_share)
    assert max(fake.prompt_tokens) <= WINDOW
