"""Judging a saved session: its files at the end or at a turn, logged as a `judgement` event, runtime-blind."""

import json
import shutil

import pytest
from judge_helpers import EXAMPLE, RecordingProvider, answer

from workbench.agent.provider import ProviderError
from workbench.judge import Judgement, judge_session, read_judgements
from workbench.judge.judge import JudgeUsageError
from workbench.session.events import event_to_dict
from workbench.session.log import read_log

TIMED = ("latency_ms", "reference_ms", "speedup", "sol_ms", "sol_fraction", "speedup_geomean", "best_speedup")


@pytest.fixture
def session(tmp_path):
    folder = tmp_path / EXAMPLE.name
    shutil.copytree(EXAMPLE, folder)
    return folder


def _with_distinctive_timings(session) -> list[str]:
    """Give every timing figure of the log a value found nowhere else; return those values as text."""
    path = session / "events.jsonl"
    events = [json.loads(line) for line in path.read_text().splitlines()]
    figures: list[str] = []

    def stamp(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in TIMED:
                    node[key] = 3.1415 + 0.0271 * len(figures) + 0.000093
                    figures.append(repr(node[key]))
                else:
                    stamp(value)
        elif isinstance(node, list):
            for value in node:
                stamp(value)

    for event in events:
        if event["kind"] in ("eval_result", "submission", "turn_end", "session_end"):
            stamp(event)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return figures


def test_a_session_is_judged_at_its_end_and_the_judgement_is_logged(session):
    before = read_log(session / "events.jsonl").events
    judgement = judge_session(session, RecordingProvider([answer()]))
    assert judgement.session == session.name and judgement.turn == 6
    assert judgement.js_design == 50.0
    events = read_log(session / "events.jsonl").events
    assert len(events) == len(before) + 1
    event = events[-1]
    assert event.kind == "judgement" and event.seq == before[-1].seq + 1 and event.turn == 6
    assert (event.provider, event.model) == ("scripted", "scripted-judge")
    assert event.prompt_sha256 == judgement.prompt_sha256 and event.js_impl == judgement.js_impl
    assert read_judgements(events) == [judgement]
    assert Judgement.from_dict(event_to_dict(event)) == judgement


def test_the_judge_never_sees_an_eval_figure(session):
    figures = _with_distinctive_timings(session)
    assert len(figures) >= 10
    provider = RecordingProvider([answer()])
    judge_session(session, provider)
    shown = provider.prompt_text()
    assert [f for f in figures if f in shown or f[:6] in shown] == []
    assert "# Solution: solution.py (35 lines)" in shown


def test_a_turn_before_the_design_note_is_judged_without_design(session):
    # The design note is written in turn 5; after turn 2 solution.py is the first (failing) kernel.
    provider = RecordingProvider([_cite_line_one()])
    judgement = judge_session(session, provider, turn=2)
    assert judgement.turn == 2 and judgement.design["L1"].reason == "no design note"
    assert judgement.attempts == 1 and judgement.js_impl == 25.0
    assert "There is no DESIGN.md" in provider.prompt_text()
    assert read_log(session / "events.jsonl").events[-1].turn == 2


def test_nothing_is_logged_when_the_judges_model_fails(session):
    before = (session / "events.jsonl").read_text()
    with pytest.raises(ProviderError, match="no response left"):
        judge_session(session, RecordingProvider([]))
    assert (session / "events.jsonl").read_text() == before


def _cite_line_one() -> dict:
    level = {"score": 25, "reason": "r", "evidence": [{"file": "solution.py", "start": 1, "end": 1, "quote": '"""'}]}
    return {"implementation": {lv: level for lv in ("L1", "L2", "L3")}}


def test_bad_sessions_and_turns_are_usage_errors(session, tmp_path):
    with pytest.raises(JudgeUsageError, match="has 6 complete turns; --turn must be 0..6"):
        judge_session(session, RecordingProvider([]), turn=7)
    with pytest.raises(JudgeUsageError, match="no session log here"):
        judge_session(tmp_path / "nowhere", RecordingProvider([]))


def test_a_torn_last_line_is_cut_before_the_judgement_is_appended(session):
    path = session / "events.jsonl"
    with path.open("a") as log:
        log.write('{"seq": 999, "kind": "tur')
    judge_session(session, RecordingProvider([answer()]))
    contents = read_log(path)
    assert contents.truncated_line is None and contents.events[-1].kind == "judgement"
