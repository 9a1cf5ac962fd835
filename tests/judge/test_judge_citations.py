"""Citations are checked against the judged file: the range must exist and hold the quote."""

import pytest
from judge_helpers import DESIGN, SOLUTION

from workbench.judge.validate import AnswerError, check_citation, parse_json, quote_found

DESIGN_TEXT = DESIGN.read_text()
SOLUTION_TEXT = SOLUTION.read_text()


def cite(start, end, quote, file="solution.py"):
    return {"file": file, "start": start, "end": end, "quote": quote}


def test_a_quote_on_its_lines_is_accepted_with_any_whitespace():
    citation, problem = check_citation(cite(12, 14, "offs_n = tl.arange(0, BLOCK)   mask_n =\n offs_n < n_cols"),
                                       "solution.py", SOLUTION_TEXT)  # fmt: skip
    assert problem is None
    assert citation is not None and citation.where() == "solution.py:12-14"


def test_a_part_of_a_line_and_a_copied_line_number_prefix_are_accepted():
    assert check_citation(cite(22, 22, "tl.rsqrt"), "solution.py", SOLUTION_TEXT)[1] is None
    assert check_citation(cite(19, 19, "  19| h = (x + r).to(tl.bfloat16)"), "solution.py", SOLUTION_TEXT)[1] is None


def test_an_ellipsis_stands_for_elided_text_in_order():
    lines = SOLUTION_TEXT.splitlines()[8:23]
    assert quote_found("def rmsnorm_kernel(x_ptr ... tl.store(y_ptr", lines)
    assert not quote_found("tl.store(y_ptr ... def rmsnorm_kernel(x_ptr", lines)


def test_a_range_beyond_the_file_does_not_exist():
    _, problem = check_citation(cite(40, 42, "anything", "DESIGN.md"), "DESIGN.md", DESIGN_TEXT)
    assert problem == "citation DESIGN.md:40-42 does not exist (the file has 8 lines)"


def test_a_shifted_range_does_not_hold_the_quote():
    _, problem = check_citation(cite(20, 21, "h = (x + r).to(tl.bfloat16)"), "solution.py", SOLUTION_TEXT)
    assert problem == 'citation solution.py:20-21 does not hold the quote "h = (x + r).to(tl.bfloat16)"'


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (cite(5, 3, "x"), "citation solution.py:5-3 is not a range"),
        (cite(0, 1, "x"), "citation solution.py:0-1 is not a range"),
        (cite("3", 4, "x"), "start and end must be integer line numbers"),
        (cite(3, 3, "  "), "citation solution.py:3 has no quote"),
        (cite(3, 3, "import triton", "DESIGN.md"), "names 'DESIGN.md'; this part is judged on solution.py"),
        ("solution.py:3", "a citation must be an object"),
    ],
)
def test_malformed_citations_say_what_is_wrong(entry, expected):
    citation, problem = check_citation(entry, "solution.py", SOLUTION_TEXT)
    assert citation is None and problem is not None and expected in problem


def test_json_is_found_bare_in_a_fence_or_inside_prose():
    assert parse_json('{"a": 1}') == {"a": 1}
    assert parse_json('Here it is:\n```json\n{"a": 1}\n```\n') == {"a": 1}
    assert parse_json('My judgement: {"a": {"b": 2}} -- done') == {"a": {"b": 2}}
    with pytest.raises(AnswerError, match="not a JSON object"):
        parse_json('{"a": 1,')
    with pytest.raises(AnswerError, match="a list, not an object"):
        parse_json("[1, 2]")
