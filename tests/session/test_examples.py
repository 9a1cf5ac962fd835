"""The committed example sessions: readable, marked scripted, and consistent with their own log."""

import pytest
from conftest import REPO

from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.session.specs import session_turns

EXAMPLES = sorted((REPO / "sessions" / "examples").iterdir())


def test_there_are_examples_of_both_conditions():
    conditions = {bool(read_log(folder / "events.jsonl").start.levels) for folder in EXAMPLES}
    assert conditions == {True, False}


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_example_is_scripted_complete_and_replayable(folder):
    events = read_log(folder / "events.jsonl").events
    start, end = events[0], events[-1]
    assert start.scripted and start.provider == "scripted"
    assert end.kind == "session_end" and end.reason == "submitted"
    state = rebuild(events)
    assert state.submissions == state.correct_submissions == 1
    assert any(e.kind == "eval_result" and not e.result["correct"] for e in events)  # a failing eval first
    assert state.files["solution.py"] == (folder / "work" / "solution.py").read_text()
    played = session_turns(folder)
    assert [t.content for t in played] == [e.content for e in events if e.kind == "model_response"]


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_a_saved_session_plays_back_as_a_scripted_provider_from_any_turn(folder):
    from workbench.session.specs import ProviderSpec

    responses = session_turns(folder)
    provider = ProviderSpec(name="scripted", script=folder).make(played=2)
    assert provider.name == "scripted" and provider.position == 2 and provider.turns == responses
