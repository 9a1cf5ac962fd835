"""The committed example sessions, recorded on a GPU (docs/app.md): readable, the scripted ones marked scripted and
the person's marked as a person's, timed, and consistent with their own log."""

import pytest
from conftest import REPO

from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.session.specs import session_turns

EXAMPLES = sorted((REPO / "sessions" / "examples").iterdir())
SCRIPTED = [folder for folder in EXAMPLES if "-human-" not in folder.name]


def test_there_are_examples_of_both_conditions_on_two_tasks_and_a_persons_session():
    starts = [read_log(folder / "events.jsonl").start for folder in EXAMPLES]
    pairs = {(start.task, bool(start.levels)) for start in starts if start.scripted}
    assert pairs == {(task, guided) for task in ("rmsnorm_residual", "sliding_window_max") for guided in (True, False)}
    assert [start.provider for start in starts if not start.scripted] == ["human"]


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_example_was_timed_on_the_gpu_and_ended_on_a_correct_final_submission(folder):
    events = read_log(folder / "events.jsonl").events
    start, end = events[0], events[-1]
    assert start.mode == "cuda" and start.device.startswith("NVIDIA")
    assert end.kind == "session_end" and end.reason == "submitted" and end.best_speedup > 1
    state = rebuild(events)
    assert state.submissions == state.correct_submissions == 1
    [final] = [e for e in events if e.kind == "submission"]
    assert final.final and final.by == ("agent" if start.scripted else "human")
    results = [e.result for e in events if e.kind in ("eval_result", "submission")]
    assert results and all(r["correct"] and r["device"]["mode"] == "cuda" and r["speedup_geomean"] for r in results)
    assert state.files["solution.py"] == (folder / "work" / "solution.py").read_text()


@pytest.mark.parametrize("folder", SCRIPTED, ids=lambda p: p.name)
def test_a_scripted_example_is_marked_so_and_plays_back_its_own_responses(folder):
    events = read_log(folder / "events.jsonl").events
    assert events[0].scripted and events[0].provider == "scripted"
    played = session_turns(folder)
    assert [t.content for t in played] == [e.content for e in events if e.kind == "model_response"]


@pytest.mark.parametrize("folder", SCRIPTED, ids=lambda p: p.name)
def test_a_saved_session_plays_back_as_a_scripted_provider_from_any_turn(folder):
    from workbench.session.specs import ProviderSpec

    responses = session_turns(folder)
    provider = ProviderSpec(name="scripted", script=folder).make(played=2)
    assert provider.name == "scripted" and provider.position == 2 and provider.turns == responses


def test_the_persons_example_is_their_edits_evaluations_and_note_with_no_model():
    [folder] = [folder for folder in EXAMPLES if "-human-" in folder.name]
    events = read_log(folder / "events.jsonl").events
    assert not events[0].scripted and (events[0].provider, events[0].model) == ("human", "person")
    assert not any(e.kind in ("model_request", "model_response") for e in events)
    actions = [e.action for e in events if e.kind == "human"]
    assert actions[0] == "takeover" and {"edit", "evaluate", "note"} <= set(actions) and actions[-1] == "submit"
