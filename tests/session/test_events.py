"""The typed events: every kind through JSON and back, old logs read, what is not an event refused, and the example
sessions read and folded as their own session_end says."""

import json
from pathlib import Path

import pytest
from conftest import REPO
from session_helpers import a_start

from workbench.agent.conversation import Usage
from workbench.session import events as ev
from workbench.session.events import EVENT_KINDS, SCHEMA_VERSION, LogError, event_from_dict, event_to_dict
from workbench.session.history import rebuild
from workbench.session.log import SessionLog, read_log

EXAMPLES = sorted((REPO / "sessions" / "examples").iterdir())
USAGE = {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 2, "cache_write_tokens": 1}
RESULT = {"correct": True, "speedup_geomean": 1.5, "workloads": []}


def one_of_each() -> list[ev.Event]:
    """An event of every kind, each with every field it can have set."""
    return [
        a_start(script="/scripts/s.json", parent={"session": "p", "turn": 2}),
        ev.SessionResumed(turn=1, from_turn=1, discarded=[5, 9], torn_line_dropped=True, provider="p", model="m",
                          by="bench"),
        ev.ModelRequest(turn=2, messages=3, notes_delivered=["n"]),
        ev.ModelResponse(turn=2, content=[{"type": "text", "text": "hi"}], stop_reason="end_turn", usage=USAGE,
                         model="m", latency_s=0.5, retries=1, cost=0.01, usage_reported=False, retried_usage=USAGE,
                         retried_unmetered=1),
        ev.ModelRetry(turn=2, attempt=1, reason="529", delay_s=0.5),
        ev.ToolCall(turn=2, id="t1", name="bash", input={"command": "ls"}),
        ev.ToolResult(turn=2, id="t1", name="bash", text="out", is_error=False),
        ev.EvalResult(turn=2, by="agent", summary="ok", result=RESULT, solution="def solution(): ..."),
        ev.Submission(turn=2, by="human", final=True, summary="ok", result=RESULT, files={"solution.py": "x"}),
        ev.Files(turn=2, changed={"a.py": "x"}, deleted=["b.py"], blobs_changed={"c.bin": "ab"}, blobs_deleted=["d"]),
        ev.Human(turn=2, action="handback", diff="-a\n+b\n", text="", text_for_agent="A person took over"),
        ev.Interrupt(turn=2, during="model", partial_text="par", tool="bash"),
        ev.Error(turn=2, message="gave up", traceback="tb", cost=None, spent_usage=USAGE, spent_unmetered=1),
        ev.TurnEnd(turn=2, user_message={"role": "user", "content": []}, files_changed=["a.py"], best_speedup=1.5,
                   usage=USAGE, cost=0.02, unmetered=1, tools=["bash"]),
        ev.SessionEnd(turn=2, reason="submitted", turns=2, usage=USAGE, cost=None, unmetered=1, best_speedup=1.5,
                      submissions=1, inherited=True),
        ev.Judgement(turn=2, task="t", js_design=50.0, js_impl=60.0, design={"L1": {}}, implementation={"L1": {}},
                     provider="p", model="m", prompt_sha256="0", attempts=1, problems=["p"], answers=["a"],
                     solution_sha256="1", design_sha256=None, session="s"),
        ev.Compaction(turn=40, cut=12, first_message={"role": "user", "content": [{"type": "text", "text": "t"}]},
                      removed_turns=[1, 34], tokens_before=150_000, tokens_after=60_000, reason="window"),
    ]  # fmt: skip


def test_every_kind_is_covered_and_named_after_its_class():
    kinds = """session_start session_resumed model_request model_response model_retry tool_call tool_result
        eval_result submission files human interrupt error turn_end session_end judgement compaction"""
    assert {e.kind for e in one_of_each()} == EVENT_KINDS == set(kinds.split())
    for event in one_of_each():
        assert "".join(word.title() for word in event.kind.split("_")) == type(event).__name__


@pytest.mark.parametrize("event", one_of_each(), ids=lambda e: e.kind)
def test_every_kind_round_trips_through_json(event):
    line = json.dumps(event_to_dict(event))
    assert event_from_dict(json.loads(line)) == event


def test_the_log_writes_and_reads_every_kind(tmp_path):
    log = SessionLog(tmp_path / "events.jsonl")
    logged = [log.append(event) for event in one_of_each()]
    log.close()
    assert read_log(tmp_path / "events.jsonl").events == logged
    assert [e.seq for e in logged] == list(range(len(logged)))


def test_fields_written_only_sometimes_are_left_out_where_absent_as_they_always_were():
    assert event_to_dict(ev.Human(turn=1, action="pause")) == {"seq": -1, "time": 0.0, "turn": 1, "kind": "human",
                                                                "action": "pause"}  # fmt: skip
    files = event_to_dict(ev.Files(turn=0, changed={}, deleted=[]))
    assert "blobs_changed" not in files and "blobs_deleted" not in files and "inherited" not in files
    assert "cost" not in event_to_dict(ev.Error(turn=1, message="x", traceback="tb"))
    spent = event_to_dict(ev.Error(turn=1, message="x", cost=None, spent_usage={}, spent_unmetered=0))
    assert list(spent)[4:] == ["message", "cost", "spent_usage", "spent_unmetered"] and spent["cost"] is None


def test_an_old_log_without_the_later_fields_reads_with_their_defaults(tmp_path):
    start = event_to_dict(a_start())
    del start["script"]  # logs from before the bench lack it
    response = {"seq": 1, "time": 0, "turn": 1, "kind": "model_response", "content": [], "stop_reason": "end_turn",
                "usage": USAGE, "model": "m", "latency_s": 0.1, "retries": 0, "cost": 0.5}  # fmt: skip
    end = {"seq": 2, "time": 0, "turn": 1, "kind": "turn_end", "user_message": None, "files_changed": [],
           "best_speedup": None, "usage": USAGE, "cost": 0.5, "tools": []}  # fmt: skip
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (start, response, end)))
    events = read_log(path).events
    assert events[0].script is None
    assert events[1].usage_reported and events[1].retried_usage == {} and events[1].retried_unmetered == 0
    assert events[2].unmetered == 0
    state = rebuild(events)
    assert state.usage == Usage(**USAGE) and state.known_cost == 0.5 and state.turn == 1


def test_a_newer_schema_is_refused_in_one_line(tmp_path):
    path = tmp_path / "events.jsonl"
    newer = {**event_to_dict(a_start()), "version": SCHEMA_VERSION + 1, "a_field_of_the_next_version": 1}
    path.write_text(json.dumps(newer) + "\n" + json.dumps({"seq": 1, "kind": "a_kind_of_the_next_version"}) + "\n")
    with pytest.raises(LogError) as refused:
        read_log(path)
    assert str(refused.value) == (f"{path}: written by log schema version {SCHEMA_VERSION + 1}; this workbench reads "
                                  f"up to {SCHEMA_VERSION} (upgrade the workbench)")  # fmt: skip


def _log_with(tmp_path: Path, line: dict) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps(event_to_dict(a_start())) + "\n" + json.dumps(line) + "\n")
    return path


def test_an_unknown_kind_is_refused_with_its_line(tmp_path):
    path = _log_with(tmp_path, {"seq": 1, "time": 0, "turn": 0, "kind": "made_up"})
    with pytest.raises(LogError, match=r"events.jsonl:2: unknown event kind 'made_up'$"):
        read_log(path)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ({"action": "pause", "mood": "calm"}, "a human event with fields this workbench does not know: mood"),
        ({}, "a human event without action"),
        ({"action": 3}, "a human event whose action is a number"),
        ({"action": "pause", "turn": "1"}, "a human event whose turn is a string"),
    ],
)
def test_a_line_that_is_no_event_of_this_schema_is_refused(tmp_path, line, why):
    path = _log_with(tmp_path, {"seq": 1, "time": 0, "turn": 1, "kind": "human", **line})
    with pytest.raises(LogError) as refused:
        read_log(path)
    assert str(refused.value) == f"{path}:2: {why}"


def test_a_line_that_is_no_object_is_refused(tmp_path):
    with pytest.raises(LogError, match="not a JSON object"):
        event_from_dict([1, 2])


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_parse_whole_and_write_back_what_they_hold(folder):
    lines = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    events = read_log(folder / "events.jsonl").events
    assert len(events) == len(lines)
    defaulted = {"script", "usage_reported", "retried_usage", "retried_unmetered", "unmetered"}  # newer than them
    for line, event in zip(lines, events):
        written = event_to_dict(event)
        kept = {k: v for k, v in written.items() if k in line}
        assert kept == line and list(kept) == list(line)  # the same values, in the same order
        assert set(written) - set(line) <= defaulted


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_fold_to_their_own_end(folder):
    contents = read_log(folder / "events.jsonl")
    state, end = rebuild(contents.events), contents.events[-1]
    assert isinstance(end, ev.SessionEnd) and state.end == end and state.end_reason == "submitted"
    assert state.turn == end.turns and vars(state.usage) == end.usage
    assert state.known_cost == end.cost and state.unmetered == end.unmetered
    assert state.best_speedup == end.best_speedup and state.submissions == end.submissions
    # and what the app shows of it
    assert state.budget == contents.start.budget and isinstance(state.last_eval, ev.Submission)
    assert state.solution == (folder / "work" / "solution.py").read_text()
