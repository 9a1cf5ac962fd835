"""A multi-turn session through the real Anthropic SDK against a local fake of the Messages API:
streamed text and tool-use deltas, cache tokens, a 429, a 529 and a cut stream retried, edits, an
eval in the interpreter, a submission; an interrupt mid-stream that leaves a resumable session."""

import json

import pytest
from agent.fake_anthropic import FakeAnthropic, Reply, Timing, ToolUse, overloaded, rate_limited, tool
from conftest import FIXTURES
from session_helpers import Recorder, task  # noqa: F401

from workbench.agent.anthropic_provider import AnthropicProvider
from workbench.session.history import complete_prefix, rebuild
from workbench.session.log import SessionLog, read_log
from workbench.session.loop import Limits, LoopCallbacks, LoopState
from workbench.session.store import SessionSetup, build_loop, create_session, load_session

KEY = "sk-ant-test-0123456789-secret"
SCRIPT = json.loads((FIXTURES / "scripts" / "scale_add.json").read_text())
BUGGY = SCRIPT[1]["content"][1]["input"]["content"]


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


def session(task, tmp_path, fake, budget=10):  # noqa: F811
    provider = AnthropicProvider("claude-sonnet-4-6", api_key=KEY, base_url=fake.url, backoff_base_s=0.01)
    setup = SessionSetup(task, set(), provider, Limits(budget), "interpret")
    folder, log = create_session(setup, tmp_path / "sessions")
    recorder, deltas = Recorder(), []
    loop = build_loop(setup, folder, log, rebuild(load_session(folder)[0]),
                      LoopCallbacks(on_event=recorder, on_delta=deltas.append))  # fmt: skip
    return loop, folder, recorder, deltas


def test_a_session_through_the_sdk_edits_evaluates_and_submits(task, tmp_path, fake, monkeypatch):  # noqa: F811
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    fix = {"path": "solution.py", "old": "(n // 1024,)", "new": "(triton.cdiv(n, 1024),)"}
    fake.push(
        rate_limited("0"),
        tool("read_file", {"path": "solution.py"}, text="Let me look.", cache_creation_input_tokens=900),
        overloaded(),
        Reply("A first kernel.", [ToolUse("write_file", {"path": "solution.py", "content": BUGGY})],
              timing=Timing(cut_after=4)),
        Reply("A first kernel.", [ToolUse("write_file", {"path": "solution.py", "content": BUGGY})],
              cache_read_input_tokens=900),
        Reply("Evaluate, then fix the grid.", [ToolUse("evaluate", {"workloads": ["tiny"]}),
                                               ToolUse("edit_file", fix), ToolUse("evaluate", {})]),
        tool("submit", {"final": True}, text="Submitting."),
    )  # fmt: skip
    loop, folder, rec, deltas = session(task, tmp_path, fake)
    loop.start()
    assert loop.wait(timeout=300) == "submitted", rec.kinds()

    retries = [e for e in rec.events if e.kind == "model_retry"]
    assert len(retries) == 3
    assert [e.result["correct"] for e in rec.events if e.kind == "eval_result"] == [False, True]
    assert any(d.kind == "tool_input" for d in deltas) and any(d.kind == "text" for d in deltas)
    end = rec.events[-1]
    assert end.usage["cache_write_tokens"] == 900 and end.usage["cache_read_tokens"] == 900
    assert end.cost is not None and end.cost > 0

    # what the SDK sent last is the conversation the log rebuilds, with cache breakpoints on it
    last = fake.requests[-1].body
    rebuilt = rebuild(complete_prefix(read_log(folder / "events.jsonl").events, up_to_turn=3))
    sent = [{"role": m["role"], "content": [{k: v for k, v in b.items() if k != "cache_control"}
                                             for b in m["content"]]} for m in last["messages"]]  # fmt: skip
    assert sent == [m.to_dict() for m in rebuilt.conversation.messages]
    assert "cache_control" in json.dumps(last["messages"][-1]) and "cache_control" in json.dumps(last["tools"][-1])

    # the key went out only in the authentication header; it is nowhere in the session
    for request in fake.requests:
        carrying = [name for name, value in request.headers.items() if KEY in value]
        assert carrying in (["x-api-key"], ["authorization"]) and KEY.encode() not in request.raw
    for path in folder.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


def test_interrupt_mid_stream_leaves_a_resumable_session(task, tmp_path, fake):  # noqa: F811
    fake.push(
        tool("bash", {"command": "echo hi"}, text="Checking the folder first."),
        Reply("x" * 400, timing=Timing(delay_s=0.05)),
    )
    loop, folder, rec, deltas = session(task, tmp_path, fake)
    loop.start()
    rec.wait_for(lambda e: e.kind == "turn_end")
    assert fake.wait_for_requests(2)
    rec.wait_for(lambda e: e.kind == "model_request" and e.turn == 2)
    loop.interrupt()
    event = rec.wait_for(lambda e: e.kind == "interrupt", timeout=10)
    assert event.during == "model"
    rec.wait_for(lambda e: e.kind == "human" and e.action == "pause")
    assert loop.status == LoopState.PAUSED
    loop.stop()
    assert loop.wait(timeout=30) == "interrupted"
    loop.log.close()  # the first process is done with the session: one writer at a time

    # resume from the log alone: one complete turn, the conversation ends with the tool result
    events = read_log(folder / "events.jsonl").events
    state = rebuild(complete_prefix(events))
    assert state.turn == 1 and state.conversation.messages[-1].role == "user"
    fake.push(tool("submit", {"final": True}, text="Done."))
    provider = AnthropicProvider("claude-sonnet-4-6", api_key=KEY, base_url=fake.url, backoff_base_s=0.01)
    setup = SessionSetup(task, set(), provider, Limits(10), "interpret")
    log = SessionLog(folder / "events.jsonl", next_seq=events[-1].seq + 1)
    resumed = build_loop(setup, folder, log, state, LoopCallbacks())
    resumed.start()
    assert resumed.wait(timeout=300) == "submitted"
    assert fake.requests[-1].body["messages"][-1]["content"][0]["type"] == "tool_result"


def test_the_bill_counts_attempts_that_broke_off_live_and_after_a_resume(task, tmp_path, fake):  # noqa: F811
    fake.push(
        Reply("Reading.", [ToolUse("read_file", {"path": "solution.py"})], input_tokens=700,
              timing=Timing(cut_after=4)),  # billed for its prompt (message_start), then sent again
        tool("read_file", {"path": "solution.py"}, text="Reading."),
        tool("submit", {"final": True}, text="Submitting.", input_tokens=250, output_tokens=30),
    )  # fmt: skip
    loop, folder, rec, _ = session(task, tmp_path, fake)
    loop.start()
    assert loop.wait(timeout=300) == "submitted", rec.kinds()
    billed = {"input_tokens": 700 + 100 + 250, "output_tokens": 1 + 20 + 30}  # message_start reports 1 output token
    live = vars(loop.state.usage)
    assert {k: live[k] for k in billed} == billed
    again = vars(rebuild(read_log(folder / "events.jsonl").events).usage)
    assert {k: again[k] for k in billed} == billed
    end = rec.events[-1]
    assert {k: end.usage[k] for k in billed} == billed
