"""Values for JSON that has no spelling for NaN and Inf: the eval results the log, the CLI and the suite write."""

from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    """NaN and Inf as strings, since JSON has no spelling for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def finite_or_none(value: Any) -> float | None:
    """A number read back from such JSON: None for "inf", "nan" or anything not a finite number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
