"""Judging a saved session: its scored files or a turn's, logged as a `judgement` event (test_judge_blind.py: blind)."""

import shutil

import pytest
from judge_helpers import EXAMPLE, RecordingProvider, answer

from workbench.agent.provider import ProviderError
from workbench.judge import Judgement, judge_session, read_judgements
from workbench.judge.judge import JudgeUsageError
from workbench.session.events import event_to_dict
from workbench.session.log import read_log


@pytest.fixture
def session(tmp_path):
    folder = tmp_path / EXAMPLE.name
    shutil.copytree(EXAMPLE, folder)
    return folder


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


def test_a_turn_before_the_design_note_is_judged_without_design(session):
    # The design note is written in turn 5; after turn 2 solution.py is the first (failing) kernel.
    provider = RecordingProvider([_cite_the_first_kernel()])
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


def _cite_the_first_kernel() -> dict:
    """An answer citing the first kernel: its rounded sum (L1.1), a program per row (L2.1), its fixed 8 warps (L3.2)."""
    cites = {"L1": (15, "h = (x + r).to(tl.bfloat16)", "L1.1"), "L2": (10, "row = tl.program_id(0)", "L2.1"),
             "L3": (28, "num_warps=8", "L3.2")}  # fmt: skip
    return {"implementation": {level: {"score": 25, "reason": "r", "evidence": [
        {"item": item, "file": "solution.py", "start": line, "end": line, "quote": quote}]}
        for level, (line, quote, item) in cites.items()}}  # fmt: skip


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
