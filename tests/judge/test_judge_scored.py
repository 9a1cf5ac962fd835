"""The judge reads the scored submission's files, as the session's scoring rule decides, not the final workspace."""

import hashlib

import pytest
from judge_helpers import RecordingProvider, answer
from session_logs import (
    as_version_2,
    copy_example,
    files_at,
    files_event,
    index_of,
    load,
    result,
    save,
    submission,
)

from workbench.judge import judge_session
from workbench.session.log import read_log

LATER_SOLUTION = '"""Rewritten after the submission."""\n\n\ndef solution(x, r, w, eps):\n    return x, r\n'
LATER_DESIGN = "# Design\n\nRewritten after the submission.\n"


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def _rewrite_after(folder, events, index, turn):
    """A change to both files after the event at `index` (in `turn`), in the log and in the workspace."""
    events.insert(index + 1, files_event(turn, {"solution.py": LATER_SOLUTION, "DESIGN.md": LATER_DESIGN}))
    (folder / "work" / "solution.py").write_text(LATER_SOLUTION)
    (folder / "work" / "DESIGN.md").write_text(LATER_DESIGN)


def _final_submission_then_edits(tmp_path, scoring="final"):
    """The example as a schema-2 log: the final submission at turn 6 keeps its files, and both files are rewritten
    after it (a person's edit after the submit), in the log and in the workspace."""
    folder = copy_example(tmp_path)
    events = load(folder)
    as_version_2(events, scoring)
    at = index_of(events, "submission", 6)
    events[at] = submission(6, result(True, 1.5), files_at(events, 6))
    _rewrite_after(folder, events, at, 6)
    save(folder, events)
    return folder, files_at(events[:at], 6)


def test_the_final_submission_is_judged_not_the_workspace_changed_after_it(tmp_path):
    folder, submitted = _final_submission_then_edits(tmp_path)
    provider = RecordingProvider([answer()])
    judgement = judge_session(folder, provider)
    shown = provider.prompt_text()
    assert "  19|     h = (x + r).to(tl.bfloat16)" in shown and "Rewritten after the submission" not in shown
    assert judgement.attempts == 1 and judgement.turn == 6
    assert judgement.solution_sha256 == sha(submitted["solution.py"])
    assert judgement.design_sha256 == sha(submitted["DESIGN.md"])
    assert judgement.judged is not None and judgement.judged["source"] == "submission"
    assert judgement.judged["description"] == "the final submission (scoring rule final), turn 6 by agent"
    logged = read_log(folder / "events.jsonl").events[-1]
    assert logged.kind == "judgement" and logged.judged == judgement.judged


def _two_submissions(tmp_path, scoring):
    """A correct non-final submission at turn 4 (speedup 2.5, before DESIGN.md existed) and a correct final one at
    turn 6 (speedup 1.5), each with its files; both files rewritten after the last."""
    folder, _ = _final_submission_then_edits(tmp_path, scoring)
    events = load(folder)
    at = index_of(events, "files", 4)  # the turn's changes are logged after its tools: submit before them
    events.insert(at, submission(4, result(True, 2.5), files_at(events, 4), final=False))
    save(folder, events)
    return folder, at


def test_under_the_best_rule_the_best_correct_submission_is_judged(tmp_path):
    folder, at = _two_submissions(tmp_path, "best")
    provider = RecordingProvider([answer(parts=("implementation",))])
    judgement = judge_session(folder, provider)
    assert judgement.turn == 4 and judgement.judged is not None
    assert judgement.judged["seq"] == at and judgement.judged["rule"] == "best"
    assert judgement.judged["description"] == "the best correct submission (scoring rule best), turn 4 by agent"
    assert judgement.design_sha256 is None and judgement.design["L1"].reason == "no design note"  # none at turn 4
    assert "There is no DESIGN.md" in provider.prompt_text()


def test_under_the_final_rule_the_last_submission_is_judged_even_when_an_earlier_one_was_faster(tmp_path):
    folder, _ = _two_submissions(tmp_path, "final")
    judgement = judge_session(folder, RecordingProvider([answer()]))
    assert judgement.turn == 6 and judgement.judged is not None and judgement.judged["rule"] == "final"


def test_an_automatic_submission_is_judged_and_recorded_as_such(tmp_path):
    folder = copy_example(tmp_path)
    events = load(folder)
    as_version_2(events, "final")
    at = index_of(events, "submission", 6)
    files = files_at(events, 6)
    broken = {"solution.py": LATER_SOLUTION, "DESIGN.md": files["DESIGN.md"]}
    events[at] = submission(6, result(False, None), broken, final=False)  # the agent's, incorrect
    events.insert(at + 1, submission(6, result(True, 1.2), files, by="auto"))  # its best correct evaluation
    save(folder, events)
    judgement = judge_session(folder, RecordingProvider([answer()]))
    assert judgement.judged is not None and judgement.judged["by"] == "auto"
    assert judgement.judged["description"].startswith("the automatic submission of the best correct evaluation")
    assert judgement.solution_sha256 == sha(files["solution.py"])


def test_an_older_log_without_submitted_files_is_judged_as_the_submissions_turn_left_the_workspace(tmp_path):
    folder = copy_example(tmp_path)
    events = load(folder)  # schema 1: a submission keeps no files
    del events[index_of(events, "submission", 6)]
    at = index_of(events, "files", 4)
    events.insert(at, submission(4, result(True, None), None, final=False))
    turn_four = files_at(events, 4)
    _rewrite_after(folder, events, index_of(events, "files", 5), 5)
    save(folder, events)
    judgement = judge_session(folder, RecordingProvider([answer(parts=("implementation",))]))
    assert judgement.turn == 4 and judgement.solution_sha256 == sha(turn_four["solution.py"])
    assert judgement.judged is not None and "an older log" in judgement.judged["description"]


def test_a_session_without_a_submission_is_judged_on_its_workspace_and_says_so(tmp_path):
    folder = copy_example(tmp_path)
    events = load(folder)
    del events[index_of(events, "submission", 6)]
    save(folder, events)
    judgement = judge_session(folder, RecordingProvider([answer()]))
    assert judgement.judged is not None and judgement.judged["source"] == "workspace"
    assert judgement.judged["description"] == "the workspace at the end (turn 6): the session made no submission"


@pytest.mark.parametrize("turn", [2, 6])
def test_a_turn_given_judges_the_workspace_after_it(tmp_path, turn):
    folder, _ = _final_submission_then_edits(tmp_path)
    provider = RecordingProvider([answer(), answer()])
    judgement = judge_session(folder, provider, turn=turn)
    assert judgement.judged is not None
    assert judgement.judged["description"] == f"the workspace after turn {turn} (--turn)"
