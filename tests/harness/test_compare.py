import torch

from workbench.harness.compare import compare_outputs, inputs_unchanged
from workbench.harness.solution_side.poison import poison_

TOL = {"float32": (1e-5, 1e-5), "bfloat16": (1e-2, 1e-2)}


def test_equal_outputs_pass_and_report_errors():
    ref = torch.randn(100)
    cmp = compare_outputs(ref + 1e-7, ref, ("y",), TOL)
    assert cmp.ok and 0 < cmp.max_abs_err < 1e-6


def test_mismatch_counts_and_locates():
    ref = torch.randn(10, 10)
    got = ref.clone()
    got[3, 4] += 1.0
    got[7, 1] -= 1.0
    cmp = compare_outputs(got, ref, ("y",), TOL)
    assert not cmp.ok and cmp.failure == "mismatch" and cmp.mismatches == 2
    assert [m.index for m in cmp.first] == [[3, 4], [7, 1]]
    assert "[3, 4]" in cmp.message


def test_unwritten_elements_are_told_apart_from_computed_nans():
    ref = torch.randn(8)
    got = torch.empty(8)
    poison_(got)
    got[:6] = ref[:6]
    cmp = compare_outputs(got, ref, ("y",), TOL)
    assert cmp.failure == "unwritten" and cmp.mismatches == 2 and cmp.first[0].index == [6]
    got[6:] = float("nan")
    assert compare_outputs(got, ref, ("y",), TOL).failure == "nonfinite"


def test_nan_and_inf_must_match():
    ref = torch.tensor([1.0, float("nan"), float("inf")])
    assert compare_outputs(ref.clone(), ref, ("y",), TOL).ok
    assert not compare_outputs(torch.tensor([1.0, 0.0, float("inf")]), ref, ("y",), TOL).ok
    assert not compare_outputs(torch.tensor([1.0, float("nan"), -float("inf")]), ref, ("y",), TOL).ok


def test_shape_dtype_and_count():
    ref = torch.randn(4)
    assert compare_outputs(torch.randn(5), ref, ("y",), TOL).failure == "shape"
    assert compare_outputs(ref.double(), ref, ("y",), TOL).failure == "dtype"
    assert compare_outputs((ref, ref), ref, ("y",), TOL).failure == "shape"


def test_per_dtype_tolerance_and_exact_integers():
    ref = torch.randn(64).bfloat16()
    assert compare_outputs(ref.float().mul(1.004).bfloat16(), ref, ("y",), TOL).ok
    ints = torch.arange(5)
    assert not compare_outputs(ints + 1, ints, ("i",), TOL).ok


def test_inputs_unchanged_is_bitwise():
    x = torch.randn(4)
    assert inputs_unchanged((x.clone(), 3), (x, 3)) is None
    y = x.clone()
    y[0] = -0.0 if x[0] == 0.0 else x[0] * 2
    assert "input 0" in inputs_unchanged((x,), (y,))
