import json

import pytest
from session_helpers import a_start

from workbench.session.events import Human, TurnEnd
from workbench.session.log import LogError, SessionLog, read_log


def test_events_are_appended_in_order_with_seq_time_turn(tmp_path):
    log = SessionLog(tmp_path / "events.jsonl")
    log.append(a_start())
    logged = log.append(Human(turn=0, action="note", text="hi", seq=7, time=1.0))  # the log numbers and times it
    log.close()
    events = read_log(tmp_path / "events.jsonl").events
    assert [e.seq for e in events] == [0, 1] and logged.seq == 1 and logged.time > 1.0
    lines = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert all(list(line)[:4] == ["seq", "time", "turn", "kind"] for line in lines)
    assert events[1] == logged


def test_a_torn_last_line_is_dropped_and_reported(tmp_path):
    path = tmp_path / "events.jsonl"
    log = SessionLog(path)
    log.append(a_start())
    log.close()
    with open(path, "a") as f:
        f.write('{"seq": 1, "kind": "model_resp')
    contents = read_log(path)
    assert len(contents.events) == 1 and contents.truncated_line.startswith('{"seq": 1')


def test_a_newer_schema_is_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"seq": 0, "time": 0, "turn": 0, "kind": "session_start", "version": 99}) + "\n")
    with pytest.raises(LogError, match="schema version 99.*upgrade"):
        read_log(path)


def test_a_broken_line_in_the_middle_is_an_error(tmp_path):
    path = tmp_path / "events.jsonl"
    start = json.dumps({"seq": 0, "time": 0, "turn": 0, "kind": "session_start", "version": 1})
    path.write_text(start + "\n{broken\n" + start + "\n")
    with pytest.raises(LogError, match=":2: not a JSON event"):
        read_log(path)


def test_only_events_are_written(tmp_path):
    with pytest.raises(TypeError):
        SessionLog(tmp_path / "e.jsonl").append({"kind": "made_up", "turn": 0})  # type: ignore[arg-type]


def test_repair_keeps_a_complete_last_event_without_its_newline_and_cuts_a_torn_one(tmp_path):
    from workbench.session.store import repair_log

    path = tmp_path / "events.jsonl"
    log = SessionLog(path)
    log.append(a_start())
    log.append(TurnEnd(turn=3, user_message=None, files_changed=[], best_speedup=None, usage={}, cost=None, tools=[]))
    log.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # killed between the event and its newline
    assert read_log(path).events[-1].kind == "turn_end"
    repair_log(path)
    assert [e.kind for e in read_log(path).events] == ["session_start", "turn_end"]
    assert path.read_bytes().endswith(b"}\n")

    with open(path, "a") as f:
        f.write('{"seq": 2, "kind": "model_resp')
    repair_log(path)
    assert [e.kind for e in read_log(path).events] == ["session_start", "turn_end"]
    assert read_log(path).truncated_line is None


def test_a_log_that_cannot_be_read_is_a_log_error_not_a_traceback(tmp_path):
    """A folder where the log should be (or a log without read permission) is reported in one line by every front
    end that catches LogError (replay, export, the app's catalogue)."""
    path = tmp_path / "events.jsonl"
    path.mkdir()
    with pytest.raises(LogError, match="cannot read the session log"):
        read_log(path)
