"""What a model's tokens cost: a built-in price table, the user's overrides from a TOML file, and `cost`.

The user's file is $WORKBENCH_PRICES, else ~/.config/workbench/prices.toml when it exists:

    [models."my-model"]              # a model name; it also matches its dated snapshots (my-model-20250101)
    input = 3.0                      # USD per million tokens
    output = 15.0
    cache_write = 3.75               # optional: defaults to the built-in entry's, else to `input`
    cache_read = 0.30

    [models."local/*"]               # a trailing * matches any name with that prefix
    input = 0
    output = 0
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from workbench.agent.conversation import Usage

PRICES_ENV = "WORKBENCH_PRICES"


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


FIELDS = tuple(f.name for f in fields(Price))

# Public list prices, standard tier, as of the dates below; they change, so override them in the prices file
# rather than trusting these. Anthropic's cache write is the 5-minute one (1.25x input), its read 0.1x input;
# OpenAI bills no cache write, so that price is the input price. Long-context surcharges, regional (US-only)
# inference and batch discounts are not modelled.
ANTHROPIC_PRICES_AS_OF = "2026-11-29"  # platform.claude.com/docs/en/about-claude/pricing
OPENAI_PRICES_AS_OF = "2025-08-31"  # openai.com/api/pricing
BUILTIN: dict[str, Price] = {
    "claude-opus-4-8": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-7": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-6": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-1": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-0": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-20250514": Price(15.0, 75.0, 18.75, 1.50),
    "claude-sonnet-4-6": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-0": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-20250514": Price(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.10),
    "gpt-5": Price(1.25, 10.0, 1.25, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.25, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.05, 0.005),
    "gpt-4.1": Price(2.0, 8.0, 2.0, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.40, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.10, 0.025),
    "gpt-4o": Price(2.50, 10.0, 2.50, 1.25),
    "gpt-4o-2024-05-13": Price(5.0, 15.0, 5.0, 5.0),  # the first gpt-4o snapshot, dearer and without caching
    "gpt-4o-mini": Price(0.15, 0.60, 0.15, 0.075),
    "o3": Price(2.0, 8.0, 2.0, 0.50),
    "o4-mini": Price(1.10, 4.40, 1.10, 0.275),
}


class PriceFileError(ValueError):
    """The prices file cannot be used; the one-line message names the file and the field."""


# What may follow a model name in its dated snapshots: claude-sonnet-4-5-20250929, gpt-4.1-2025-04-14,
# claude-sonnet-4-5@20250929 (Vertex).
_SNAPSHOT = re.compile(r"[-@]\d{4}-?\d{2}-?\d{2}")


def _matches(key: str, model: str) -> bool:
    if key.endswith("*"):
        return model.startswith(key[:-1])
    # Only a date may follow, so "gpt-5" never prices "gpt-5-pro", nor "claude-opus-4-1" a "claude-opus-4-10".
    return model == key or (model.startswith(key) and _SNAPSHOT.fullmatch(model[len(key) :]) is not None)


def price_for(model: str, table: Mapping[str, Price] | None = None) -> Price | None:
    """The price of `model`: the entry with the longest matching key, or None when none matches."""
    table = price_table() if table is None else table
    keys = [key for key in table if _matches(key, model)]
    return table[max(keys, key=len)] if keys else None


def cost(model: str, usage: Usage, table: Mapping[str, Price] | None = None) -> float | None:
    """USD that `usage` of `model` costs at list price, or None for a model without a known price."""
    price = price_for(model, table)
    if price is None:
        return None
    usd_per_million = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_write_tokens * price.cache_write
        + usage.cache_read_tokens * price.cache_read
    )
    return usd_per_million / 1e6


def user_prices_path() -> Path | None:
    """$WORKBENCH_PRICES (which must exist), else ~/.config/workbench/prices.toml when it exists."""
    explicit = os.environ.get(PRICES_ENV)
    if explicit:
        return Path(explicit).expanduser()
    default = Path.home() / ".config" / "workbench" / "prices.toml"
    return default if default.is_file() else None


_cache: dict[tuple[str, int], dict[str, Price]] = {}


def price_table() -> dict[str, Price]:
    """The built-in prices with the user's file laid over them (read again only when the file changes)."""
    path = user_prices_path()
    if path is None:
        return dict(BUILTIN)
    try:
        stamp = (str(path), path.stat().st_mtime_ns)
    except OSError as exc:
        raise PriceFileError(f"{path}: cannot read the prices file ({exc.strerror})") from None
    if stamp not in _cache:
        _cache.clear()
        _cache[stamp] = {**BUILTIN, **load_prices(path, BUILTIN)}
    return dict(_cache[stamp])


def load_prices(path: Path, base: Mapping[str, Price] = BUILTIN) -> dict[str, Price]:
    """The entries of the prices file at `path`; a field left out falls back to `base`'s entry of that name."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise PriceFileError(f"{path}: cannot read the prices file ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PriceFileError(f"{path}: invalid TOML: {exc}") from None
    extra = sorted(set(data) - {"models"})
    if extra:
        raise PriceFileError(f'{path}: unknown table {extra[0]!r}: prices go under [models."name"]')
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise PriceFileError(f'{path}: models must be a table of [models."name"] tables')
    return {name: _entry(path, name, entry, base.get(name)) for name, entry in models.items()}


def _entry(path: Path, name: str, entry: Any, known: Price | None) -> Price:
    where = f'{path}: models."{name}"'
    if not isinstance(entry, dict):
        raise PriceFileError(f"{where} must be a table with {', '.join(FIELDS)}")
    for field, value in entry.items():
        if field not in FIELDS:
            raise PriceFileError(f"{where}.{field} is not a price field (expected {', '.join(FIELDS)})")
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise PriceFileError(f"{where}.{field} must be a non-negative number of USD per million tokens")
    values = {field: float(value) for field, value in entry.items()}
    if known is not None:
        return replace(known, **values)
    for field in ("input", "output"):
        if field not in values:
            raise PriceFileError(f"{where}.{field} is missing (a new model needs input and output)")
    values.setdefault("cache_write", values["input"])
    values.setdefault("cache_read", values["input"])
    return Price(**values)
