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


E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
# one fp8 step is at most 1/8 of a value in e4m3 (3 mantissa bits), 1/4 in e5m2; atol covers the subnormals
FP8_TOL = {"uint8": (1.0, 0.0), "float8_e4m3fn": (2.0**-9, 0.125), "float8_e5m2": (2.0**-16, 0.25)}


def _codes(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return values.to(dtype).view(torch.uint8)


def test_an_fp8_nan_code_next_to_448_is_not_one_step_away():
    ref = _codes(torch.tensor([1.0, 448.0, -2.5]), E4M3)
    got = ref.clone()
    got[1] = 0x7F  # e4m3fn's NaN, one integer above 448's code 0x7E
    assert compare_outputs(got, ref, ("q",), FP8_TOL).ok  # as integers it is within atol 1: the exploit
    cmp = compare_outputs(got, ref, ("q",), FP8_TOL, {"q": E4M3})
    assert not cmp.ok and cmp.failure == "nonfinite" and [m.index for m in cmp.first] == [[1]]
    assert cmp.worst is not None and cmp.worst.expected == 448.0 and cmp.worst.got != cmp.worst.got  # NaN
    native = compare_outputs(got.view(E4M3), ref.view(E4M3), ("q",), FP8_TOL)
    assert not native.ok and native.failure == "nonfinite"


def test_e5m2_inf_does_not_match_its_largest_finite_value():
    ref = torch.tensor([57344.0, 1.0]).to(E5M2)
    got = torch.tensor([float("inf"), 1.0]).to(E5M2)
    assert got.view(torch.uint8)[0] - ref.view(torch.uint8)[0] == 1
    assert compare_outputs(got, ref, ("q",), FP8_TOL).failure == "nonfinite"
    assert compare_outputs(got.view(torch.uint8), ref.view(torch.uint8), ("q",), FP8_TOL, {"q": E5M2}).failure == (
        "nonfinite"
    )
    assert compare_outputs(ref.clone(), ref, ("q",), FP8_TOL).ok
    assert not compare_outputs(got, torch.tensor([-float("inf"), 1.0]).to(E5M2), ("q",), FP8_TOL).ok


def test_fp8_outputs_within_tolerance_pass_and_beyond_it_fail():
    values = torch.randn(4096, generator=torch.Generator().manual_seed(0)) * 100
    ref = _codes(values.clamp(-448, 448), E4M3)
    assert compare_outputs(ref.clone(), ref, ("q",), FP8_TOL, {"q": E4M3}).ok
    positive = (values > 0.1) & (values < 200)  # clear of 448, whose code is next to NaN
    one_ulp = torch.where(positive, ref + 1, ref)  # codes of one sign are monotonic: +1 is the next value up
    assert compare_outputs(one_ulp, ref, ("q",), FP8_TOL, {"q": E4M3}).ok
    three_ulps = torch.where(positive, ref + 3, ref)
    cmp = compare_outputs(three_ulps, ref, ("q",), FP8_TOL, {"q": E4M3})
    assert not cmp.ok and cmp.failure == "mismatch" and cmp.mismatches > 1000


def test_poison_in_an_encoded_output_still_reads_as_unwritten():
    ref = _codes(torch.linspace(-4, 4, 16), E4M3)
    got = torch.empty(16, dtype=torch.uint8)
    poison_(got)
    got[:10] = ref[:10]
    cmp = compare_outputs(got, ref, ("q",), FP8_TOL, {"q": E4M3})
    assert cmp.failure == "unwritten" and cmp.mismatches == 6 and cmp.first[0].index == [10]


def test_bool_is_compared_exactly_whatever_the_tolerance():
    ref = torch.tensor([True, False, True])
    assert compare_outputs(ref.clone(), ref, ("m",), {"bool": (1.0, 1.0)}).ok
    cmp = compare_outputs(~ref, ref, ("m",), {"bool": (1.0, 1.0)})
    assert not cmp.ok and cmp.mismatches == 3


class _Lazy(torch.Tensor):
    pass


def test_a_tensor_subclass_is_refused():
    ref = torch.randn(4)
    cmp = compare_outputs(ref.clone().as_subclass(_Lazy), ref, ("y",), TOL)
    assert not cmp.ok and cmp.failure == "dtype" and "Tensor subclass" in cmp.message
    assert compare_outputs(torch.nn.Parameter(ref.clone()), ref, ("y",), TOL).failure == "dtype"
    assert compare_outputs(1.5, ref, ("y",), TOL).failure == "dtype"


def test_the_worst_element_is_reported_with_its_errors():
    ref = torch.ones(10, 10)
    got = ref.clone()
    got[3, 4] += 1.0
    got[7, 1] -= 5.0
    cmp = compare_outputs(got, ref, ("y",), TOL)
    assert [m.index for m in cmp.first] == [[3, 4], [7, 1]]
    worst = cmp.worst
    assert worst is not None and worst.index == [7, 1] and worst.got == -4.0 and worst.expected == 1.0
    assert worst.abs_err == 5.0 and worst.rel_err == 5.0 and "[7, 1]" in cmp.message
    got[0, 0] = float("nan")
    assert compare_outputs(got, ref, ("y",), TOL).worst.index == [0, 0]  # a NaN is further than any number


def test_an_unwritten_native_fp8_output_reads_as_unwritten_not_as_a_mismatch():
    expected = torch.tensor([1.0, 2.0, 448.0, -3.0]).to(torch.float8_e4m3fn)
    got = torch.empty(4, dtype=torch.float8_e4m3fn)
    poison_(got)
    got[:2] = expected[:2]
    cmp = compare_outputs(got, expected, ("q",), {"float8_e4m3fn": (0.0, 0.125)})
    assert not cmp.ok and cmp.failure == "unwritten" and cmp.mismatches == 2
    computed_nan = torch.tensor([float("nan")]).to(torch.float8_e4m3fn)
    assert not bool(compare_outputs(computed_nan, expected[:1], ("q",), {}).failure == "unwritten")
