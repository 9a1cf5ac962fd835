"""Prices: the built-in table, matching model names to entries, and the user's prices file."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.agent.conversation import Usage
from workbench.agent.pricing import BUILTIN, Price, PriceFileError, cost, price_for, price_table


@pytest.fixture(autouse=True)
def no_user_prices(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Each test starts from the built-in table: an empty home and no $WORKBENCH_PRICES."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("WORKBENCH_PRICES", raising=False)
    return tmp_path


def write_prices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    monkeypatch.setenv("WORKBENCH_PRICES", str(path))
    return path


def test_cost_counts_every_kind_of_token() -> None:
    usage = Usage(
        input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=2_000_000, cache_write_tokens=400_000
    )
    # sonnet: 3 in, 15 out, 3.75 cache write, 0.30 cache read per million
    assert cost("claude-sonnet-4-6", usage) == pytest.approx(3.0 + 1.5 + 0.6 + 1.5)


def test_dated_snapshots_match_their_model_and_nothing_else_does() -> None:
    assert price_for("claude-sonnet-4-5-20250929") == BUILTIN["claude-sonnet-4-5"]
    assert price_for("claude-haiku-4-5@20251001") == BUILTIN["claude-haiku-4-5"]
    assert price_for("gpt-4.1-2025-04-14") == BUILTIN["gpt-4.1"]
    assert price_for("gpt-4o-mini") == BUILTIN["gpt-4o-mini"]  # the longer name, not gpt-4o
    assert price_for("gpt-4o-2024-05-13") == BUILTIN["gpt-4o-2024-05-13"]  # the longest match wins
    for unknown in ("claude-opus-4-10", "claude-opus-4", "gpt-5-pro", "o3-mini", "Qwen/Qwen3-Coder", ""):
        assert price_for(unknown) is None, unknown


def test_an_unknown_model_costs_none_not_a_guess() -> None:
    assert cost("my-local-model", Usage(input_tokens=10)) is None


def test_the_prices_file_extends_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_prices(
        tmp_path,
        monkeypatch,
        """
[models."my-model"]
input = 1
output = 2

[models."claude-haiku-4-5"]
output = 9.5

[models."Qwen/*"]
input = 0
output = 0
""",
    )
    assert price_for("my-model") == Price(1.0, 2.0, 1.0, 1.0)  # cache prices default to the input price
    assert price_for("claude-haiku-4-5") == Price(1.0, 9.5, 1.25, 0.10)  # the fields left out stay built-in
    assert cost("Qwen/Qwen3-Coder-30B", Usage(input_tokens=10**6)) == 0.0
    assert price_for("claude-opus-4-6") == BUILTIN["claude-opus-4-6"]


def test_the_default_prices_file_is_read_when_present(no_user_prices: Path) -> None:
    path = no_user_prices / ".config" / "workbench" / "prices.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[models."house-model"]\ninput = 4\noutput = 8\ncache_read = 0.4\n')
    assert price_for("house-model") == Price(4.0, 8.0, 4.0, 0.4)


def test_the_file_is_read_again_when_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_prices(tmp_path, monkeypatch, '[models."m"]\ninput = 1\noutput = 1\n')
    assert price_table()["m"].input == 1.0
    path.write_text('[models."m"]\ninput = 2\noutput = 1\n')
    import os

    os.utime(path, ns=(1, 10**18))  # a new mtime, however coarse the file system's clock
    assert price_table()["m"].input == 2.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[models."m"]\ninput = 1\noutput = \n', "invalid TOML"),
        ('[models."m"]\ninput = "cheap"\noutput = 1\n', 'models."m".input must be a non-negative number'),
        ('[models."m"]\ninput = -1\noutput = 1\n', 'models."m".input must be a non-negative number'),
        ('[models."m"]\ninput = 1\nouput = 1\n', 'models."m".ouput is not a price field'),
        ('[models."m"]\ninput = 1\n', 'models."m".output is missing'),
        ('[prices."m"]\ninput = 1\n', "unknown table 'prices'"),
        ("models = 3\n", "models must be a table"),
        ("[models]\nm = 3\n", 'models."m" must be a table'),
    ],
)
def test_a_malformed_file_is_a_one_line_error_naming_file_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    path = write_prices(tmp_path, monkeypatch, text)
    with pytest.raises(PriceFileError) as caught:
        cost("m", Usage())
    assert str(caught.value).startswith(f"{path}: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_explicit_file_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_PRICES", str(tmp_path / "nope.toml"))
    with pytest.raises(PriceFileError, match="nope.toml: cannot read"):
        price_table()
