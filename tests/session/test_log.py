import json

import pytest

from workbench.session.log import SCHEMA_VERSION, LogError, SessionLog, read_log


def test_events_are_appended_in_order_with_seq_time_turn(tmp_path):
    log = SessionLog(tmp_path / "events.jsonl")
    log.append("session_start", 0, version=SCHEMA_VERSION)
    log.append("human", 0, action="note", text="hi")
    log.close()
    events = read_log(tmp_path / "events.jsonl").events
    assert [e["seq"] for e in events] == [0, 1]
    assert all({"seq", "time", "turn", "kind"} <= set(e) for e in events)


def test_a_torn_last_line_is_dropped_and_reported(tmp_path):
    path = tmp_path / "events.jsonl"
    log = SessionLog(path)
    log.append("session_start", 0, version=SCHEMA_VERSION)
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


def test_unknown_kinds_are_refused_at_write(tmp_path):
    with pytest.raises(ValueError):
        SessionLog(tmp_path / "e.jsonl").append("made_up", 0)


def test_repair_keeps_a_complete_last_event_without_its_newline_and_cuts_a_torn_one(tmp_path):
    from workbench.session.store import repair_log

    path = tmp_path / "events.jsonl"
    log = SessionLog(path)
    log.append("session_start", 0, version=SCHEMA_VERSION)
    log.append("turn_end", 3)
    log.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # killed between the event and its newline
    assert read_log(path).events[-1]["kind"] == "turn_end"
    repair_log(path)
    assert [e["kind"] for e in read_log(path).events] == ["session_start", "turn_end"]
    assert path.read_bytes().endswith(b"}\n")

    with open(path, "a") as f:
        f.write('{"seq": 2, "kind": "model_resp')
    repair_log(path)
    assert [e["kind"] for e in read_log(path).events] == ["session_start", "turn_end"]
    assert read_log(path).truncated_line is None
