"""Correctness: compare a solution's outputs with the reference's, element by element."""

from __future__ import annotations

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


def as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def compare_outputs(
    got: Any, expected: Any, names: tuple[str, ...], tolerance: dict[str, tuple[float, float]]
) -> Comparison:
    """All outputs must match the reference's in count, shape and dtype, and elementwise:
    |got - expected| <= atol + rtol * |expected| with NaN and Inf in the same places."""
    got_t, expected_t = as_tuple(got), as_tuple(expected)
    if len(got_t) != len(expected_t):
        return Comparison(False, "shape", f"returned {len(got_t)} outputs, expected {len(expected_t)}")
    total = Comparison(True)
    for i, (g, e) in enumerate(zip(got_t, expected_t)):
        name = names[i] if i < len(names) else f"output{i}"
        if not isinstance(g, torch.Tensor):
            return Comparison(False, "dtype", f"{name} is a {type(g).__name__}, expected a tensor")
        if tuple(g.shape) != tuple(e.shape):
            return Comparison(False, "shape", f"{name} has shape {tuple(g.shape)}, expected {tuple(e.shape)}")
        if g.dtype != e.dtype:
            return Comparison(False, "dtype", f"{name} has dtype {g.dtype}, expected {e.dtype}")
        if g.device != e.device:
            return Comparison(False, "dtype", f"{name} is on {g.device}, expected {e.device}")
        atol, rtol = tolerance.get(str(e.dtype).removeprefix("torch."), (0.0, 0.0))
        one = _compare_tensor(name, g, e, atol, rtol)
        total.max_abs_err = max(total.max_abs_err, one.max_abs_err)
        total.max_rel_err = max(total.max_rel_err, one.max_rel_err)
        if not one.ok and total.ok:
            total.ok, total.failure, total.message = False, one.failure, one.message
        total.mismatches += one.mismatches
        total.first.extend(one.first[: FIRST_MISMATCHES - len(total.first)])
    return total


def _compare_tensor(name: str, got: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float) -> Comparison:
    unwritten = poisoned_mask(got)
    expected_poison = poisoned_mask(expected)
    if unwritten is not None and expected_poison is not None:
        unwritten = unwritten & ~expected_poison  # a reference value that happens to equal the poison
    wide = torch.float64 if got.dtype.is_floating_point or got.dtype.is_complex else torch.int64
    g, e = got.to(wide), expected.to(wide)
    if wide == torch.float64:
        g_nan, e_nan = torch.isnan(g), torch.isnan(e)
        finite = torch.isfinite(g) & torch.isfinite(e)
        diff = torch.where(finite, (g - e).abs(), torch.zeros_like(g))
        bad = (g_nan != e_nan) | (torch.isinf(g) | torch.isinf(e)) & (g != e) | (diff > atol + rtol * e.abs())
        rel = torch.where(finite & (e != 0), diff / e.abs(), torch.zeros_like(g))
        max_abs, max_rel = float(diff.max()) if diff.numel() else 0.0, float(rel.max()) if rel.numel() else 0.0
    else:
        diff = (g - e).abs()
        bad = diff > atol + rtol * e.abs()
        max_abs, max_rel = float(diff.max()) if diff.numel() else 0.0, 0.0
    count = int(bad.sum())
    if count == 0:
        return Comparison(True, max_abs_err=max_abs, max_rel_err=max_rel)
    if unwritten is not None and bool((unwritten & bad).any()):
        failure, focus = "unwritten", unwritten & bad
    elif wide == torch.float64 and bool((~torch.isfinite(g) & torch.isfinite(e)).any()):
        failure, focus = "nonfinite", ~torch.isfinite(g) & torch.isfinite(e)
    else:
        failure, focus = "mismatch", bad
    where = focus.nonzero()[:FIRST_MISMATCHES].tolist()
    first = [Mismatch(name, idx, _scalar(got, idx), _scalar(expected, idx)) for idx in where]
    what = {
        "unwritten": f"{int(focus.sum())} elements never written (still hold the poison)",
        "nonfinite": f"{int(focus.sum())} elements NaN/Inf where the reference is finite",
        "mismatch": f"{count} elements beyond atol={atol:g}, rtol={rtol:g}",
    }[failure]
    message = f"{name}: {what} of {got.numel()}; first at {where[0]}"
    return Comparison(False, failure, message, max_abs, max_rel, count, first)


def _scalar(tensor: torch.Tensor, index: list[int]) -> float | None:
    value = tensor[tuple(index)].item() if index else tensor.item()
    return float(value)


def inputs_unchanged(before: tuple[Any, ...], after: tuple[Any, ...]) -> str | None:
    """None when every tensor input is bit-for-bit what it was; else which one changed."""
    for i, (b, a) in enumerate(zip(before, after)):
        if isinstance(b, torch.Tensor):
            same = b.shape == a.shape and b.dtype == a.dtype and bool(_bits(b).eq(_bits(a)).all())
            if not same:
                return f"input {i} was modified by the solution"
    return None


def _bits(t: torch.Tensor) -> torch.Tensor:
    views = {8: torch.int64, 4: torch.int32, 2: torch.int16, 1: torch.uint8}
    if t.dtype == torch.bool:
        return t
    return t.contiguous().view(views[t.element_size()])
