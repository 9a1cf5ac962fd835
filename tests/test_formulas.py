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


def _distinct_by_sum(rows: int, draws: int, power: float) -> float:
    """The definition, summed over every value (slow: small tables only)."""
    k = 1 / power
    return sum(1 - (1 - (((r + 1) / rows) ** k - (r / rows) ** k)) ** draws for r in range(rows))


@pytest.mark.parametrize("rows, draws, power", [(100_000, 50_000, 3), (60_000, 200_000, 2), (5_000, 3_000, 3)])
def test_distinct_draws_matches_its_definition(rows, draws, power):
    got = evaluate_formula("distinct_draws(rows, draws, power)", {"rows": rows, "draws": draws, "power": power})
    assert got == pytest.approx(_distinct_by_sum(rows, draws, power), rel=1e-4)


def test_distinct_draws_uniform_and_its_limits():
    # power 1 is uniform: rows * (1 - (1 - 1/rows)**draws), in closed form
    assert evaluate_formula("distinct_draws(1000, 700, 1)", {}) == pytest.approx(1000 * (1 - (1 - 1 / 1000) ** 700))
    # never more than the draws or the rows; a power law repeats its hot rows, so far fewer than the draws
    big = evaluate_formula("distinct_draws(4000000, 3276800, 3)", {})
    assert 0.4 * 3276800 < big < 0.6 * 3276800
    with pytest.raises(FormulaError, match="positive"):
        evaluate_formula("distinct_draws(0, 10, 3)", {})


def test_distinct_draws_agrees_with_the_embedding_bag_generator():
    """The task's own input generator: the rows it actually draws, against the expectation."""
    import importlib.util

    import torch

    from workbench.tasks import load_task

    task = load_task("embedding_bag")
    spec = importlib.util.spec_from_file_location("_embedding_bag_inputs", task.path / "inputs.py")
    inputs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inputs)
    params = {"num_rows": 200_000, "dim": 8, "num_bags": 2000, "nnz": 150_000, "dtype": "float32", "mode": "sum"}
    _, indices, _, _ = inputs.make_inputs(params, 5, torch.device("cpu"))
    expected = evaluate_formula("distinct_draws(num_rows, nnz, 3)", params)
    assert indices.unique().numel() == pytest.approx(expected, rel=0.01)
