"""Safe evaluation of the `[sol]` formulas in task.toml: arithmetic over workload parameters only."""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

ITEMSIZES = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
}


def itemsize(dtype: str) -> int:
    """Bytes per element of a dtype named as torch names it (`bfloat16`, `float32`, ...)."""
    try:
        return ITEMSIZES[dtype]
    except KeyError:
        raise FormulaError(f"unknown dtype {dtype!r} in itemsize()") from None


@functools.lru_cache(maxsize=256)
def distinct_draws(rows: float, draws: float, power: float) -> float:
    """Expected number of distinct values among `draws` independent draws of floor(rows * u**power), u uniform in
    [0, 1): the rows a power-law lookup stream touches at least once (power 1: uniform). Value r is drawn with
    p_r = ((r + 1) / rows)**(1 / power) - (r / rows)**(1 / power), so the expectation is sum_r 1 - (1 - p_r)**draws:
    summed exactly over the first 4096 values, and beyond, where the summand is smooth and decreasing, as an
    integral over 4096 log-spaced points plus the end corrections (relative error under 1e-4)."""
    n_rows, n, k = int(rows), float(draws), 1.0 / float(power)
    if n_rows <= 0 or n <= 0 or k <= 0:
        raise FormulaError(f"distinct_draws needs positive rows, draws and power, got {rows}, {draws}, {power}")

    def hit(r: float) -> float:  # P(value r is drawn at least once)
        p = ((r + 1) / n_rows) ** k - (r / n_rows) ** k
        return 1.0 if p >= 1 else -math.expm1(n * math.log1p(-p))

    exact = min(n_rows, 4096)
    total = math.fsum(hit(r) for r in range(exact))
    if n_rows > exact:  # the values exact .. n_rows - 1
        first, last, points = float(exact), float(n_rows - 1), 4096
        xs = [first * (last / first) ** (i / points) for i in range(points + 1)]
        ys = [hit(x) for x in xs]
        integral = math.fsum((xs[i + 1] - xs[i]) * (ys[i] + ys[i + 1]) / 2 for i in range(points))
        total += integral + (ys[0] + ys[-1]) / 2
    return total


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "itemsize": itemsize,
    "distinct_draws": distinct_draws,
    "min": min,
    "max": max,
    "ceil": math.ceil,
    "floor": math.floor,
    "log2": math.log2,
    "sqrt": math.sqrt,
}

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


class FormulaError(ValueError):
    """A formula that does not parse, or uses a name or construct that is not allowed."""


def check_formula(text: str, names: set[str]) -> None:
    """Raise FormulaError unless `text` parses and uses only allowed functions and the given names."""
    tree = _parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in names and node.id not in _FUNCTIONS:
            raise FormulaError(f"unknown name {node.id!r} in {text!r}")


def evaluate_formula(text: str, params: Mapping[str, Any]) -> float:
    """Evaluate a formula over workload parameters; only arithmetic and a few math functions."""
    return float(_eval(_parse(text).body, params))


def _parse(text: str) -> ast.Expression:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse {text!r}: {exc.msg}") from None
    for node in ast.walk(tree):
        allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Load)
        if not isinstance(node, allowed + tuple(_BINARY) + (ast.USub, ast.UAdd)):
            raise FormulaError(f"{type(node).__name__} is not allowed in {text!r}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS):
            raise FormulaError(f"only {sorted(_FUNCTIONS)} may be called in {text!r}")
    return tree


def _eval(node: ast.expr, params: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in params:
            return params[node.id]
        raise FormulaError(f"unknown name {node.id!r}")
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, params), _eval(node.right, params))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, params)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*(_eval(arg, params) for arg in node.args))
    raise FormulaError(f"{type(node).__name__} is not allowed")
