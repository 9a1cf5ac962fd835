import pytest

from workbench.formulas import FormulaError, check_formula, evaluate_formula


def test_arithmetic_over_parameters():
    params = {"rows": 8, "hidden": 4096, "dtype": "bfloat16"}
    assert evaluate_formula("4 * rows * hidden * itemsize(dtype) + hidden * itemsize(dtype)", params) == 270336
    assert evaluate_formula("ceil(rows / 3) + max(1, 2) + log2(hidden)", params) == 3 + 2 + 12


@pytest.mark.parametrize(
    "text",
    ["__import__('os').system('true')", "rows.__class__", "[rows]", "open('x')", "lambda: 1", "rows if 1 else 2"],
)
def test_anything_but_arithmetic_is_refused(text):
    with pytest.raises(FormulaError):
        evaluate_formula(text, {"rows": 1})


def test_unknown_names_are_named():
    with pytest.raises(FormulaError, match="'colums'"):
        check_formula("rows * colums", {"rows"})


def test_unknown_dtype_is_an_error():
    with pytest.raises(FormulaError, match="float128"):
        evaluate_formula("itemsize(dtype)", {"dtype": "float128"})
