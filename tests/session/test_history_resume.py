"""What a resume keeps of a log and what the fold says of a resumed session, on logs written by hand."""

import dataclasses

from session_helpers import a_start

from workbench.session import events as ev
from workbench.session.history import complete_prefix, rebuild

RESULT = {"correct": True, "workloads": []}


def _turn_end(turn: int) -> ev.TurnEnd:
    return ev.TurnEnd(turn=turn, user_message=None, files_changed=[], best_speedup=None, usage={}, cost=None, tools=[])


def _end(turn: int) -> ev.SessionEnd:
    return ev.SessionEnd(turn=turn, reason="budget", turns=turn, usage={}, cost=None, best_speedup=None, submissions=0)


def _numbered(events: list[ev.Event]) -> list[ev.Event]:
    return [dataclasses.replace(e, seq=i) for i, e in enumerate(events)]


def test_a_persons_evaluations_and_submissions_after_the_last_turn_survive_a_resume():
    log = _numbered([
        a_start(),
        ev.ModelRequest(turn=1, messages=1, notes_delivered=[]),
        _turn_end(1),
        ev.Human(turn=1, action="takeover"),
        ev.EvalResult(turn=1, by="human", summary="correct", result=RESULT),
        ev.Submission(turn=1, by="human", final=False, summary="correct", result=RESULT),
        ev.Human(turn=1, action="handback", text="over to you", text_for_agent="over to you"),
        ev.ModelRequest(turn=2, messages=3, notes_delivered=[]),
        ev.EvalResult(turn=2, by="agent", summary="correct", result=RESULT),  # in turn 2, which the kill cut short
    ])  # fmt: skip
    kept = complete_prefix(log)
    assert [e.kind for e in kept] == ["session_start", "model_request", "turn_end", "human", "eval_result",
                                      "submission", "human"]  # fmt: skip
    state = rebuild(kept)
    assert state.submissions == 1 and state.last_eval is kept[5]


def test_the_submission_made_at_an_end_is_not_kept_by_a_resume():
    """A session that ended without a submission gets its best evaluation submitted ("auto"); resumed, it runs on
    and will end again, so that submission must not count twice."""
    auto = ev.Submission(turn=1, by="auto", final=True, summary="correct", result=RESULT)
    log = _numbered([a_start(), ev.ModelRequest(turn=1, messages=1, notes_delivered=[]), _turn_end(1), auto, _end(1)])
    assert [e.kind for e in complete_prefix(log)] == ["session_start", "model_request", "turn_end"]


def test_a_resumed_session_is_not_ended_by_the_end_before_its_resume():
    resumed = ev.SessionResumed(turn=1, from_turn=1, discarded=None, provider="scripted", model="scripted")
    request = ev.ModelRequest(turn=1, messages=1, notes_delivered=[])
    log = _numbered([a_start(), request, _turn_end(1), _end(1), resumed])
    assert rebuild(log).end is None
    assert rebuild([*log, _end(1)]).end_reason == "budget"
