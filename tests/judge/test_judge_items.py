"""Citations name the guidance item they evidence: an item's `code` patterns must be in the cited lines' code (a
comment or a string claiming it, or real code of another kind, does not count), and a score counts only the items
its citations evidence."""

import json

import pytest
from judge_helpers import DESIGN, SOLUTION, RecordingProvider, answer, rmsnorm_task, with_citation

from workbench.guidance import GuidanceItem
from workbench.judge import Citation, Judgement, judge_files
from workbench.judge.prompt import build_prompt
from workbench.judge.validate import JudgedText, check_citation, items_needed

GEMM = """import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    acc = tl.sum(a[:, :, None] * b[None, :, :], axis=1)  # tl.dot(a, b): tensor-core tiles
    acc += tl.dot(a, b)
    PLAN = "acc = tl.dot(a, b)"
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
"""
TILES = GuidanceItem("L3.1", 3, "Tensor-core tiles", "Multiply tiles with tl.dot.", (), "tl.dot on tiles",
                     code=(r"tl\.dot",))  # fmt: skip
WARPS = GuidanceItem("L3.2", 3, "Warps from the tile", "Size num_warps from the tile.", (), "num_warps", code=())


def cite(start, quote, item="L3.1", end=None):
    return {"item": item, "file": "solution.py", "start": start, "end": end or start, "quote": quote}


def check_gemm(entry, items=(TILES, WARPS)):
    return check_citation(entry, JudgedText("solution.py", GEMM), list(items))


def test_the_real_tl_dot_line_counts_for_the_tensor_core_item():
    citation, problem = check_gemm(cite(10, "acc += tl.dot(a, b)"))
    assert problem is None and citation == Citation("solution.py", 10, 10, "acc += tl.dot(a, b)", "L3.1")


def test_code_beside_a_comment_claiming_tl_dot_does_not_count():
    # The quote is mostly code, so it passes as code; the tl.dot is only in the comment.
    line = "acc = tl.sum(a[:, :, None] * b[None, :, :], axis=1)  # tl.dot(a, b): tensor-core tiles"
    _, problem = check_gemm(cite(9, line))
    assert problem is not None and "is given for L3.1, but its code holds none of what realises L3.1" in problem
    assert "/tl\\.dot/" in problem


@pytest.mark.parametrize(
    ("start", "quote", "why"),
    [
        (9, "# tl.dot(a, b): tensor-core tiles", "not code"),  # the comment alone
        (11, 'PLAN = "acc = tl.dot(a, b)"', "not code"),  # a string spelling it, a little code beside
        (7, "a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])", "holds none of what realises L3.1"),
    ],
)
def test_a_comment_a_string_or_unrelated_real_code_is_no_evidence_of_tl_dot(start, quote, why):
    _, problem = check_gemm(cite(start, quote))
    assert problem is not None and why in problem


def test_an_item_without_code_patterns_takes_any_code_and_null_takes_any_code():
    assert check_gemm(cite(7, "a = tl.load(a_ptr", item="L3.2"))[1] is None
    citation, problem = check_gemm(cite(7, "a = tl.load(a_ptr", item=None))
    assert problem is None and citation is not None and citation.item is None


@pytest.mark.parametrize(
    ("item", "items", "expected"),
    [
        ("L2.1", (TILES, WARPS), "names item 'L2.1', which is not an item of this level: give one of L3.1, L3.2"),
        ("L3.1", (), "names item 'L3.1', but this level has no items: give \"item\": null"),
    ],
)
def test_an_item_of_another_level_or_in_a_level_without_items_is_rejected(item, items, expected):
    _, problem = check_gemm(cite(10, "acc += tl.dot(a, b)", item=item), items)
    assert problem == f"citation solution.py:10 {expected}" + ("" if items == () else ", or null for what the file "
                                                                  "does instead")  # fmt: skip


def test_the_design_note_is_checked_for_the_item_not_for_code():
    text = "# Design\n\nL3: tiles multiplied with tensor cores.\n"
    judged = JudgedText("DESIGN.md", text)
    entry = {"item": "L3.1", "file": "DESIGN.md", "start": 3, "end": 3, "quote": "tiles multiplied with tensor cores"}
    assert check_citation(entry, judged, [TILES])[1] is None


@pytest.mark.parametrize(("score", "count", "needed"), [(0, 3, 0), (25, 3, 1), (50, 3, 1), (75, 3, 2), (100, 3, 3),
                                                        (75, 2, 1), (100, 2, 2), (100, 1, 1), (40, 0, 0)])  # fmt: skip
def test_a_score_needs_citations_of_its_share_of_the_items(score, count, needed):
    assert items_needed(score, count) == needed


@pytest.fixture
def rmsnorm():
    return rmsnorm_task()


def run(task, answers):
    provider = RecordingProvider(answers)
    return judge_files(task, SOLUTION, DESIGN, provider), provider


def test_a_weight_load_cited_for_the_multi_row_tiles_is_rejected_then_corrected(rmsnorm):
    # rmsnorm_residual's L2.3 (several rows per tile) needs a [:, None] broadcast or a reduction along axis=1; the
    # example's weight load is real code but neither.
    wrong = with_citation("implementation", "L2", 16, 16, "w = tl.load(w_ptr + offs_n", "L2.3")
    judgement, provider = run(rmsnorm, [wrong, answer()])
    assert judgement.attempts == 2 and len(judgement.problems) == 1
    assert judgement.problems[0].startswith("implementation L2: citation solution.py:16 is given for L2.3, but its "
                                            "code holds none of what realises L2.3")  # fmt: skip
    assert judgement.problems[0] in provider.requests[1].messages[2].text()
    assert judgement.implementation["L2"].evidence[0].item == "L2.3" and judgement.implementation["L2"].valid


def test_a_score_claiming_more_items_than_it_cites_is_rejected_twice_and_scores_zero(rmsnorm):
    # 100 at L1 needs both L1 items cited; this answer cites only L1.1.
    one_item = with_citation("implementation", "L1", 19, 19, "h = (x + r).to(tl.bfloat16)", "L1.1")
    judgement, _ = run(rmsnorm, [one_item, one_item])
    level = judgement.implementation["L1"]
    assert level.score == 0 and not level.valid
    assert "a score of 100 needs citations of at least 2 of the level's 2 items (L1.1, L1.2); the evidence cites " \
           "1: L1.1" in level.reason  # fmt: skip
    assert judgement.implementation["L2"].score == 50


def test_citations_without_items_back_only_a_score_of_zero(rmsnorm):
    bare = answer()
    for level in bare["implementation"].values():
        for citation in level["evidence"]:
            citation["item"] = None
    judgement, _ = run(rmsnorm, [bare, bare])
    assert all(not judgement.implementation[lv].valid for lv in ("L1", "L2", "L3"))
    zero = answer()
    zero["implementation"]["L3"] = {
        "score": 0,
        "reason": "no tuning",
        "evidence": [
            {
                "item": None,
                "file": "solution.py",
                "start": 33,
                "end": 33,
                "quote": "grid = (triton.cdiv(n_rows, rows),)",
            }
        ],
    }
    judgement, _ = run(rmsnorm, [zero])
    assert judgement.attempts == 1 and judgement.implementation["L3"].score == 0
    assert judgement.implementation["L3"].evidence[0].item is None


def test_the_prompt_asks_for_items_and_lists_each_items_code(rmsnorm):
    from workbench.guidance import load_guidance

    assert rmsnorm.guidance_path is not None
    items = load_guidance(rmsnorm.guidance_path)
    prompt = build_prompt("task", items, SOLUTION.read_text(), DESIGN.read_text(), nonce="n")
    assert '"item": "<the id of the item it evidences, or null>"' in prompt.user
    assert "Code that realises L2.3 contains (regular expression, checked on the cited lines' code, comments and " \
           "strings taken out): `\\[:, *None\\]` or `axis=1`" in prompt.user  # fmt: skip
    assert "Code that realises L1.2" not in prompt.user  # no construct tells L1.2 (values) apart
    assert "Code that realises L2.2" not in prompt.user  # nor L2.2 (a program per row tile: every kernel's launch)


def test_a_judgement_recorded_before_citations_named_items_still_loads(rmsnorm):
    judgement, _ = run(rmsnorm, [answer()])
    data = json.loads(json.dumps(judgement.to_dict()))
    assert data["implementation"]["L1"]["evidence"][0]["item"] == "L1.1"
    for part in ("design", "implementation"):
        for level in data[part].values():
            for citation in level["evidence"]:
                del citation["item"]
    old = Judgement.from_dict(data)
    assert old.implementation["L1"].evidence[0] == Citation("solution.py", 19, 19, "h = (x + r).to(tl.bfloat16)")
