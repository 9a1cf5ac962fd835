"""Correctness: compare a solution's outputs with the reference's, element by element, in value space.

Values, not encodings, are compared: every float dtype torch can upcast (fp8 included) is decoded to float64,
and an integer output that carries another dtype's bit patterns (fp8 codes returned as uint8) is decoded as
that dtype when the task names it in `encodings`. So an fp8 NaN code next to 448 is a NaN where the reference
is finite, not "one step away"; NaN only matches NaN and Inf only the same Inf; bool is compared exactly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from workbench.harness.result import Mismatch
from workbench.harness.solution_side.poison import poisoned_mask

FIRST_MISMATCHES = 5


@dataclass
class Comparison:
    ok: bool
    failure: str | None = None  # unwritten, nonfinite, mismatch, shape, dtype
    message: str | None = None
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    mismatches: int = 0
    first: list[Mismatch] = field(default_factory=list)
    worst: Mismatch | None = None  # with its abs and rel error (infinite for a NaN or Inf where none belongs)


def as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def compare_outputs(
    got: Any,
    expected: Any,
    names: tuple[str, ...],
    tolerance: dict[str, tuple[float, float]],
    encodings: Mapping[str, torch.dtype] | None = None,
) -> Comparison:
    """All outputs must match the reference's in count, type, shape and dtype, and elementwise in value:
    |got - expected| <= atol + rtol * |expected| with NaN and Inf in the same places. `encodings` maps an
    output's name to the dtype its integer bits encode; its tolerance is then that dtype's."""
    got_t, expected_t = as_tuple(got), as_tuple(expected)
    if len(got_t) != len(expected_t):
        return Comparison(False, "shape", f"returned {len(got_t)} outputs, expected {len(expected_t)}")
    total = Comparison(True)
    for i, (g, e) in enumerate(zip(got_t, expected_t)):
        name = names[i] if i < len(names) else f"output{i}"
        refused = _refuse(name, g, e)
        if refused is not None:
            return refused
        encoding = (encodings or {}).get(name)
        atol, rtol = tolerance.get(str(encoding or e.dtype).removeprefix("torch."), (0.0, 0.0))
        one = _compare_tensor(name, g, e, atol, rtol, encoding)
        total.max_abs_err = max(total.max_abs_err, one.max_abs_err)
        total.max_rel_err = max(total.max_rel_err, one.max_rel_err)
        if not one.ok and total.ok:
            total.ok, total.failure, total.message, total.worst = False, one.failure, one.message, one.worst
        total.mismatches += one.mismatches
        total.first.extend(one.first[: FIRST_MISMATCHES - len(total.first)])
    return total


def _refuse(name: str, got: Any, expected: torch.Tensor) -> Comparison | None:
    # type() rather than isinstance(): a subclass can compute lazily when compared, or fake its __class__.
    if type(got) is not torch.Tensor:
        if issubclass(type(got), torch.Tensor):
            what = f"{name} is a Tensor subclass ({type(got).__name__}); return a plain torch.Tensor"
            return Comparison(False, "dtype", what)
        return Comparison(False, "dtype", f"{name} is a {type(got).__name__}, expected a tensor")
    if tuple(got.shape) != tuple(expected.shape):
        return Comparison(False, "shape", f"{name} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    if got.dtype != expected.dtype:
        return Comparison(False, "dtype", f"{name} has dtype {got.dtype}, expected {expected.dtype}")
    if got.device != expected.device:
        return Comparison(False, "dtype", f"{name} is on {got.device}, expected {expected.device}")
    return None


def _decoded(t: torch.Tensor, encoding: torch.dtype | None) -> torch.Tensor | None:
    """The values in float64 (complex128), int64 for integers, or None where only the bits can be compared
    (bool, packed sub-byte floats)."""
    if encoding is not None:
        t = t.contiguous().view(encoding)
    if t.dtype == torch.bool:
        return None
    try:
        if t.dtype.is_complex:
            return t.to(torch.complex128)
        return t.to(torch.float64 if t.dtype.is_floating_point else torch.int64)
    except (RuntimeError, TypeError):  # a dtype torch cannot convert: compare its bits
        return None


def _compare_tensor(
    name: str, got: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float, encoding: torch.dtype | None
) -> Comparison:
    unwritten = poisoned_mask(got)  # on the container's bits, before any decoding
    expected_poison = poisoned_mask(expected)
    if unwritten is not None and expected_poison is not None:
        unwritten = unwritten & ~expected_poison  # a reference value that happens to equal the poison
    g, e = _decoded(got, encoding), _decoded(expected, encoding)
    if g is None or e is None:
        g, e = _bits(got).to(torch.int64), _bits(expected).to(torch.int64)
        atol = rtol = 0.0  # bits have no distance
    if g.dtype.is_floating_point or g.dtype.is_complex:
        finite = torch.isfinite(g) & torch.isfinite(e)
        diff = torch.where(finite, (g - e).abs(), torch.zeros(g.shape, dtype=torch.float64, device=g.device))
        bad = (torch.isnan(g) != torch.isnan(e)) | (torch.isinf(g) | torch.isinf(e)) & (g != e)
        bad |= diff > atol + rtol * e.abs()
        error = torch.where(bad & ~finite, torch.full_like(diff, float("inf")), diff)  # NaN/Inf misplaced: inf
    else:
        finite = torch.ones(g.shape, dtype=torch.bool, device=g.device)
        diff = error = (g.double() - e.double()).abs()
        bad = (g != e) & (diff > atol + rtol * e.double().abs())
    scale = e.abs().double()
    rel = torch.where(finite & (scale != 0), diff / scale, torch.zeros_like(diff))
    max_abs = float(diff.max()) if diff.numel() else 0.0
    max_rel = float(rel.max()) if rel.numel() else 0.0
    count = int(bad.sum())
    if count == 0:
        return Comparison(True, max_abs_err=max_abs, max_rel_err=max_rel)
    if unwritten is not None and bool((unwritten & bad).any()):
        failure, focus = "unwritten", unwritten & bad
    elif g.dtype.is_floating_point and bool((~torch.isfinite(g) & torch.isfinite(e)).any()):
        failure, focus = "nonfinite", ~torch.isfinite(g) & torch.isfinite(e)
    else:
        failure, focus = "mismatch", bad
    where = focus.nonzero()[:FIRST_MISMATCHES].tolist()
    first = [Mismatch(name, idx, _scalar(g, idx), _scalar(e, idx)) for idx in where]
    flat = int(torch.where(bad, error, torch.full_like(error, -1.0)).reshape(-1).argmax())
    idx = [int(i) for i in torch.unravel_index(torch.tensor(flat), bad.shape)] if bad.dim() else []
    worst_abs, worst_scale = float(error[tuple(idx)]), float(scale[tuple(idx)])
    worst_rel = worst_abs / worst_scale if worst_scale else (float("inf") if worst_abs else 0.0)
    worst = Mismatch(name, idx, _scalar(g, idx), _scalar(e, idx), worst_abs, worst_rel)
    what = {
        "unwritten": f"{int(focus.sum())} elements never written (still hold the poison)",
        "nonfinite": f"{int(focus.sum())} elements NaN/Inf where the reference is finite",
        "mismatch": f"{count} elements beyond atol={atol:g}, rtol={rtol:g}",
    }[failure]
    message = f"{name}: {what} of {got.numel()}; first at {where[0]}; worst at {idx}: got {worst.got}, " \
              f"expected {worst.expected}"  # fmt: skip
    return Comparison(False, failure, message, max_abs, max_rel, count, first, worst)


def _scalar(tensor: torch.Tensor, index: list[int]) -> float | None:
    value = tensor[tuple(index)].item() if index else tensor.item()
    return None if isinstance(value, complex) else float(value)


def inputs_unchanged(before: tuple[Any, ...], after: tuple[Any, ...]) -> str | None:
    """None when every tensor input is bit-for-bit what it was; else which one changed."""
    for i, (b, a) in enumerate(zip(before, after)):
        if isinstance(b, torch.Tensor):
            same = type(a) is torch.Tensor and b.shape == a.shape and b.dtype == a.dtype
            if not (same and bool(_bits(b).eq(_bits(a)).all())):
                return f"input {i} was modified by the solution"
    return None


def _bits(t: torch.Tensor) -> torch.Tensor:
    views = {8: torch.int64, 4: torch.int32, 2: torch.int16, 1: torch.uint8}
    if t.dtype == torch.bool:
        return t
    return t.contiguous().view(views[t.element_size()])
