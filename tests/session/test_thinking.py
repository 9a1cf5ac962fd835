"""Sessions that think: extended thinking through the real Anthropic SDK against the strict fake (which refuses a
thinking block changed, dropped from the answered tool-use turn, or a budget not under max_tokens) over many
tool-using turns, a compaction, a failure and a resume; thinking turned on at a resume; an OpenAI-compatible server
with a reasoning effort, and one that refuses it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from agent.anthropic_rules import Limits as AnthropicLimits
from agent.fake_anthropic import FakeAnthropic, Reply, ToolUse
from agent.fake_openai import FakeOpenAI, ToolCall
from agent.fake_openai import Reply as OpenAIReply
from conftest import FIXTURE_ROOT

from workbench.agent.conversation import THINKING_BLOCKS, Message, TextBlock, ThinkingBlock, ToolResultBlock
from workbench.session.context import output_budget, request_thinking, thinking_can_start
from workbench.session.events import Compaction, Error, ModelRequest, ModelResponse, SessionResumed, SessionStart
from workbench.session.headless import TurnPrinter
from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.session.loop import LoopCallbacks
from workbench.session.service import Session
from workbench.session.specs import ProviderSpec, make_limits
from workbench.tasks import load_task

SOLUTION = (FIXTURE_ROOT / "guidance" / "scale_add" / "expert.py").read_text()
NOTES = "\n".join(f"- observation {i}: the block size, the mask and the grid were checked again." for i in range(50))
WINDOW = 24_000
BUDGET = 2048


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")


def turn_of(body: dict[str, Any]) -> int:
    """The turn asked for: the counter the loop ends each user message with says the last one done."""
    for message in reversed(body["messages"]):
        found = re.findall(r"\[turn (\d+)/", json.dumps(message.get("content")))
        if found:
            return int(found[-1]) + 1
    return 1


def move(turn: int) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """What the model says and calls at `turn`: writes that grow the context, a turn without a tool now and then."""
    if turn == 1:
        return "I will write the kernel.", [("write_file", {"path": "solution.py", "content": SOLUTION})]
    step = turn % 4
    if step == 1:
        return "Notes.", [("write_file", {"path": f"notes_{turn}.md", "content": NOTES})]
    if step == 2:
        return "A long output.", [("bash", {"command": "seq 1 2500"})]
    if step == 3:
        return "Reading.", [("read_file", {"path": "solution.py"}), ("list_files", {})]
    return "Let me think before the next call.", []


def thinking_reply(body: dict[str, Any]) -> Reply:
    turn = turn_of(body)
    text, calls = move(turn)
    thought = f"Turn {turn}: " + "the mask covers the tail; the grid is cdiv(n, BLOCK). " * 12
    if turn == 9:  # cut off at max_tokens while thinking: no signature came, nothing of it can go back
        return Reply(thinking=thought, unsigned=True, stop_reason="max_tokens", chunk=200)
    return Reply(text=text, tool_uses=[ToolUse(n, a) for n, a in calls], thinking=thought, redacted=turn == 6,
                 chunk=200)  # fmt: skip


def anthropic_spec(fake: FakeAnthropic, thinking: int | None = BUDGET) -> ProviderSpec:
    return ProviderSpec("anthropic", "claude-sonnet-4-5", fake.url, thinking=thinking)


def run_to_end(session: Session, deltas: list | None = None) -> tuple[str, list[dict[str, Any]]]:
    loop = session.start(LoopCallbacks(on_delta=(deltas if deltas is not None else []).append))
    reason = loop.wait(timeout=600)
    live = [m.to_dict() for m in loop.state.conversation.messages]
    session.close()
    return reason or "none", live


def test_a_thinking_session_over_tool_turns_a_compaction_a_failure_and_a_resume_sends_only_valid_requests(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)
    with FakeAnthropic(limits=AnthropicLimits(context_window=WINDOW), measure_usage=True) as fake:
        fake.push(*[thinking_reply] * 8)  # then the script runs out: the fake answers 400 and the session fails
        deltas: list = []
        session = Session.new(task, set(), anthropic_spec(fake), make_limits(budget=24, context_window=WINDOW),
                              mode="interpret", root=tmp_path)  # fmt: skip
        assert run_to_end(session, deltas)[0] == "error"
        served = len(fake.requests)
        fake.push(*[thinking_reply] * 20)
        resumed = Session.resume(session.folder)  # with what the log recorded: the fake's server and the thinking
        reason, live = run_to_end(resumed)
        bodies = [r.body for r in fake.requests]

    assert fake.rejected == []  # every request one the real API accepts
    assert reason == "budget"
    events = read_log(session.folder / "events.jsonl").events
    start = events[0]
    assert isinstance(start, SessionStart) and start.thinking_budget == BUDGET
    resumed_at = next(i for i, e in enumerate(events) if isinstance(e, SessionResumed))
    assert any(isinstance(e, Compaction) for e in events[resumed_at:])
    # thinking on in every request, its budget under max_tokens; never turned off or down on the way
    assert all(b["thinking"] == {"type": "enabled", "budget_tokens": BUDGET} and b["max_tokens"] > BUDGET
               for b in bodies)  # fmt: skip
    assert not [e for e in events if isinstance(e, ModelRequest) and e.thinking_note]
    # the thinking went back as it came, and each answered tool-use turn began with it (after the compactions too)
    after_resume = bodies[served]["messages"]
    assert after_resume[-2]["role"] == "assistant" and after_resume[-2]["content"][0]["type"] in (
        "thinking", "redacted_thinking")  # fmt: skip
    assert any(b["type"] == "redacted_thinking" for body in bodies for m in body["messages"] for b in m["content"])
    # streamed apart from the reply; the log rebuilds the conversation the model was last sent
    thought = "".join(d.text for d in deltas if d.kind == "thinking")
    assert "Turn 1: the mask covers the tail" in thought
    assert "the mask covers" not in "".join(d.text for d in deltas if d.kind == "text")
    assert [m.to_dict() for m in rebuild(events).conversation.messages] == live
    # billed as output: each response's output tokens count its thinking
    outputs = [e.usage["output_tokens"] for e in events if isinstance(e, ModelResponse)]
    assert min(outputs) > 150


def test_thinking_turned_on_at_a_resume_waits_for_a_turn_without_tool_calls_and_says_so(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)

    def reply(body: dict[str, Any]) -> Reply:
        turn = turn_of(body)
        if turn == 4:
            return Reply(text="Thinking it over before the next call.", thinking="A plan.")
        calls = [ToolUse("read_file", {"path": "task.md"})] if turn != 1 else [ToolUse("list_files", {})]
        return Reply(text=f"Turn {turn}.", tool_uses=calls, thinking=f"Thoughts at turn {turn}.")

    with FakeAnthropic() as fake:
        fake.push(*[reply] * 2)
        session = Session.new(task, set(), anthropic_spec(fake, thinking=None), make_limits(budget=7),
                              mode="interpret", root=tmp_path)  # fmt: skip
        assert run_to_end(session)[0] == "error"
        before = len(fake.requests)
        fake.push(*[reply] * 10)
        resumed = Session.resume(session.folder, ProviderSpec(thinking=BUDGET))
        printed: list[str] = []
        resumed.start(LoopCallbacks(on_event=TurnPrinter(7, out=_Lines(printed)))).wait(timeout=300)
        resumed.close()
        bodies = [r.body for r in fake.requests[before:]]

    assert fake.rejected == []
    assert ["thinking" in b for b in bodies] == [False, False, True, True, True]  # turns 3, 4 | 5, 6, 7
    notes = [e.thinking_note for e in read_log(session.folder / "events.jsonl").events
             if isinstance(e, ModelRequest) and e.thinking_note]  # fmt: skip
    assert len(notes) == 1 and "thinking off for this request" in notes[0]  # said once, not every turn
    assert any("thinking off for this request" in line for line in printed)
    assert any(line.strip().startswith("thinking: Thoughts at turn 5") for line in printed)


class _Lines:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def write(self, text: str) -> None:
        self.lines.extend(line for line in text.splitlines() if line)

    def flush(self) -> None:
        pass


def test_near_the_window_thinking_is_turned_down_under_max_tokens_never_past_it():
    messages = [Message("user", [TextBlock("Go.")])]
    assert output_budget(200_000, 10_000, thinking=16_000) == 8192 + 16_000
    tight = output_budget(40_000, 34_000, thinking=16_000)  # the room the window leaves
    budget, note = request_thinking(16_000, tight, messages)
    assert budget is not None and 1024 <= budget < tight and "turned down" in (note or "")
    assert output_budget(40_000, 39_500, thinking=16_000) == 2048  # room for the least thinking and an answer
    assert request_thinking(16_000, 2048, messages)[0] == 1024
    assert request_thinking(None, 8192, messages) == (None, None)


def test_thinking_can_start_only_where_the_answered_tool_turn_began_with_thinking():
    call = Message("assistant", [TextBlock("x"), _use()])
    thought = Message("assistant", [ThinkingBlock("t", "s"), _use()])
    answer = Message("user", [ToolResultBlock("toolu_1", "ok")])
    first = Message("user", [TextBlock("Go.")])
    assert thinking_can_start([first])
    assert not thinking_can_start([first, call, answer])
    assert not thinking_can_start([first, call, answer, Message("user", [TextBlock("a note")])])  # one turn to the API
    assert thinking_can_start([first, thought, answer])
    assert thinking_can_start([first, call, Message("user", [TextBlock("no call answered")])])


def _use() -> Any:
    from workbench.agent.conversation import ToolUseBlock

    return ToolUseBlock("toolu_1", "bash", {"command": "ls"})


# -- OpenAI-compatible servers -----------------------------------------------------------------------------------------


def openai_reply(body: dict[str, Any]) -> OpenAIReply:
    turn = turn_of(body)
    text, calls = move(turn)
    return OpenAIReply(text=text, tool_calls=[ToolCall(n, a) for n, a in calls], reasoning=f"Reasoning {turn}.")


def test_an_openai_session_with_a_reasoning_effort_shows_the_reasoning_and_never_sends_it_back(tmp_path, capsys):
    from workbench.cli.main import main

    task = load_task("scale_add", FIXTURE_ROOT)
    with FakeOpenAI(measure_usage=True) as fake:
        fake.push(*[openai_reply] * 6)
        spec = ProviderSpec("openai", "o4-mini", fake.url, reasoning_effort="high")
        session = Session.new(task, set(), spec, make_limits(budget=5), mode="interpret", root=tmp_path)
        assert run_to_end(session)[0] == "budget"
        bodies = [r.body for r in fake.requests]

    assert fake.rejected == [] and [b["reasoning_effort"] for b in bodies] == ["high"] * 5
    assert not any("Reasoning" in json.dumps(b["messages"]) for b in bodies)
    events = read_log(session.folder / "events.jsonl").events
    assert events[0].reasoning_effort == "high"
    assert any(b["type"] == "thinking" for e in events if isinstance(e, ModelResponse) for b in e.content)
    assert not any(isinstance(b, THINKING_BLOCKS) for m in rebuild(events).conversation.messages for b in m.content)

    assert main(["replay", str(session.folder)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert "reasoning effort high" in shown[0]
    assert "[  2] thinking: Reasoning 2." in shown and "[  2] agent: A long output." in shown


def test_a_server_that_refuses_the_reasoning_effort_ends_the_session_with_one_line_naming_the_option(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)
    with FakeOpenAI() as fake:
        fake.takes_reasoning_effort = False
        spec = ProviderSpec("openai", "gpt-4.1", fake.url, reasoning_effort="low")
        session = Session.new(task, set(), spec, make_limits(budget=3), mode="interpret", root=tmp_path)
        assert run_to_end(session)[0] == "error"
    errors = [e.message for e in read_log(session.folder / "events.jsonl").events if isinstance(e, Error)]
    assert len(errors) == 1 and "--reasoning-effort" in errors[0] and "\n" not in errors[0]
