"""Judging files with a scripted judge: valid answers, one retry for an invalid one, zero if still invalid."""

import json

import pytest
from judge_helpers import DESIGN, SOLUTION, RecordingProvider, answer, rmsnorm_task, with_citation

from workbench.judge import Judgement, judge_files
from workbench.judge.judge import JudgeUsageError


@pytest.fixture
def rmsnorm():
    return rmsnorm_task()


def run(task, answers, design=DESIGN):
    provider = RecordingProvider(answers)
    return judge_files(task, SOLUTION, design, provider), provider


def test_a_valid_judgement_scores_six_levels_with_their_citations(rmsnorm):
    judgement, provider = run(rmsnorm, [answer()])
    assert judgement.attempts == 1 and judgement.problems == []
    assert [judgement.design[lv].score for lv in ("L1", "L2", "L3")] == [75, 50, 25]
    assert [judgement.implementation[lv].score for lv in ("L1", "L2", "L3")] == [100, 50, 25]
    assert judgement.js_design == 50.0 and judgement.js_impl == pytest.approx(175 / 3)
    assert [(c.item, c.where()) for c in judgement.implementation["L1"].evidence] == [
        ("L1.1", "solution.py:19"),
        ("L1.1", "solution.py:22"),
        ("L1.2", "solution.py:13"),
    ]
    assert (judgement.provider, judgement.model) == ("scripted", "scripted-judge")
    assert len(judgement.prompt_sha256) == 64
    prompt = provider.requests[0].messages[0].text()
    assert "  19|     h = (x + r).to(tl.bfloat16)" in prompt  # the solution with line numbers
    assert "L3.3: Keep the shared weight in cache" in prompt and "Evidence in the code:" in prompt  # the rubric
    assert "- 75: Nearly every item is stated" in prompt  # the anchors


def test_the_judgement_survives_a_round_trip_through_json(rmsnorm):
    judgement, _ = run(rmsnorm, [answer()])
    again = Judgement.from_dict(json.loads(json.dumps(judgement.to_dict())))
    assert again == judgement
    assert again.to_dict()["js_design"] == 50.0


def test_an_answer_in_a_json_fence_is_accepted(rmsnorm):
    judgement, _ = run(rmsnorm, ["My judgement:\n```json\n" + json.dumps(answer()) + "\n```"])
    assert judgement.attempts == 1 and judgement.implementation["L1"].score == 100


def test_an_invented_range_is_rejected_then_corrected_on_the_retry(rmsnorm):
    invented = with_citation("design", "L2", 40, 42, "a program owns whole rows")
    judgement, provider = run(rmsnorm, [invented, answer()])
    assert judgement.attempts == 2
    assert judgement.problems == ["design L2: citation DESIGN.md:40-42 does not exist (the file has 8 lines)"]
    assert judgement.design["L2"].score == 50 and judgement.design["L2"].valid
    retry = provider.requests[1].messages
    assert [m.role for m in retry] == ["user", "assistant", "user"]
    assert "design L2: citation DESIGN.md:40-42 does not exist (the file has 8 lines)" in retry[2].text()


def test_a_shifted_range_rejected_twice_scores_that_level_zero_and_keeps_the_others(rmsnorm):
    shifted = with_citation("implementation", "L2", 17, 18, "w = tl.load(w_ptr + offs_n")  # the load is on line 16
    judgement, _ = run(rmsnorm, [shifted, shifted])
    level = judgement.implementation["L2"]
    assert level.score == 0 and not level.valid and level.evidence == ()
    assert "citation solution.py:17-18 does not hold the quote" in level.reason
    assert judgement.implementation["L1"].score == 100 and judgement.design["L1"].score == 75
    assert judgement.js_impl == pytest.approx(125 / 3)


def test_malformed_json_is_asked_again_and_the_valid_answer_is_used(rmsnorm):
    judgement, provider = run(rmsnorm, ['{"design": {"L1": {"score": 75,', answer()])
    assert judgement.attempts == 2 and judgement.problems[0].startswith("the answer is not a JSON object")
    assert judgement.js_design == 50.0
    assert "the answer is not a JSON object" in provider.requests[1].messages[2].text()


def test_malformed_json_twice_scores_every_level_zero(rmsnorm):
    judgement, _ = run(rmsnorm, ["no idea", "still no idea"])
    assert judgement.js_design == judgement.js_impl == 0.0
    assert all("not a JSON object" in judgement.design[lv].reason for lv in ("L1", "L2", "L3"))


def test_a_level_valid_only_in_the_first_answer_keeps_that_score(rmsnorm):
    first = with_citation("design", "L3", 7, 7, "not in the note")  # design L3 invalid, the rest valid
    second = answer()
    del second["implementation"]["L1"]  # the retry forgets a level the first answer had right
    judgement, _ = run(rmsnorm, [first, second])
    assert judgement.design["L3"].score == 25 and judgement.implementation["L1"].score == 100


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda a: a["design"]["L1"].update(score=101), "design L1: score must be an integer from 0 to 100"),
        (lambda a: a["design"]["L1"].update(score="high"), "design L1: score must be an integer from 0 to 100"),
        (lambda a: a["design"]["L1"].update(reason=""), "design L1: reason must be a non-empty string"),
        (lambda a: a["design"]["L1"].update(evidence=[]), "design L1: evidence must list 1 to 4 citations (got 0)"),
        (lambda a: a["design"]["L1"]["evidence"].extend(a["design"]["L1"]["evidence"] * 4), "(got 5)"),
        (lambda a: a["implementation"].pop("L3"), "implementation L3: missing from the answer"),
    ],
)
def test_each_kind_of_invalid_level_is_named_in_the_retry(rmsnorm, mutate, problem):
    bad = answer()
    mutate(bad)
    judgement, _ = run(rmsnorm, [bad, answer()])
    assert judgement.attempts == 2 and any(problem in p for p in judgement.problems)


def test_without_a_design_note_design_scores_zero_and_only_the_implementation_is_asked(rmsnorm):
    judgement, provider = run(rmsnorm, [answer(parts=("implementation",))], design=None)
    assert judgement.attempts == 1 and judgement.design_sha256 is None
    assert all(judgement.design[lv].score == 0 and judgement.design[lv].reason == "no design note"
               for lv in ("L1", "L2", "L3"))  # fmt: skip
    assert judgement.js_impl == pytest.approx(175 / 3)
    prompt = provider.requests[0].messages[0].text()
    assert "There is no DESIGN.md" in prompt and '"design":' not in prompt


def test_a_blank_design_note_counts_as_none(rmsnorm, tmp_path):
    blank = tmp_path / "DESIGN.md"
    blank.write_text("\n  \n")
    judgement, _ = run(rmsnorm, [answer(parts=("implementation",))], design=blank)
    assert judgement.design["L1"].reason == "no design note"


def test_unreadable_files_and_a_task_without_guidance_are_usage_errors(rmsnorm, tmp_path, fixture_root):
    with pytest.raises(JudgeUsageError, match="cannot read the design note"):
        judge_files(rmsnorm, SOLUTION, tmp_path / "missing.md", RecordingProvider([]))
    bare = tmp_path / "bare"
    (bare / "tasks").mkdir(parents=True)
    import shutil

    shutil.copytree(fixture_root / "tasks" / "scale_add", bare / "tasks" / "scale_add")
    with pytest.raises(JudgeUsageError, match="task scale_add has no guidance"):
        judge_files("scale_add", SOLUTION, None, RecordingProvider([]), root=bare)
