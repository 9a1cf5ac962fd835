"""`workbench bench --dry-run`: the plan and its estimated cost, from a token model that plays back a measured session;
it starts nothing, writes nothing and needs no key. The token model itself is checked against a real session through
the Anthropic SDK and the strict fake (the simulation benchmarks/context_bench.py runs at 350 turns)."""

from __future__ import annotations

import pytest
from agent.fake_anthropic import FakeAnthropic, Limits
from bench_fixtures import make_root, make_scripts
from session import test_long_session as scenario

from workbench.agent.conversation import Usage
from workbench.agent.pricing import cost
from workbench.bench.cli import main
from workbench.bench.measured_profile import PROFILE
from workbench.bench.token_model import profile_from_events, simulate

SONNET = "claude-sonnet-4-5"


def test_the_token_model_plays_back_a_measured_session(tmp_path, monkeypatch) -> None:
    """Profile a 100-turn session at a 50k window (three compactions) and play it back: the tokens of each kind, the
    compactions and the cost come out as measured. (At a window so small that a compaction comes every 10 turns, the
    scenario's 10-turn pattern of large writes falls in step with them and the error grows to ~13%.)"""
    from workbench.agent.anthropic_provider import AnthropicProvider

    monkeypatch.setenv("WORKBENCH_ROOT", str(scenario.FIXTURE_ROOT))
    monkeypatch.setattr(scenario, "TURNS", 100)
    monkeypatch.setattr(scenario, "WINDOW", 50_000)
    with FakeAnthropic(limits=Limits(context_window=50_000), measure_usage=True) as fake:
        fake.push(*[scenario.anthropic_reply] * 110)
        provider = AnthropicProvider(SONNET, api_key="k", base_url=fake.url, backoff_base_s=0.01)
        reason, _, events = scenario.run_session(tmp_path, provider)
    assert reason == "budget" and not fake.rejected
    measured = {name: sum(e.usage[name] for e in events if e.kind == "model_response") for name in PROFILE_FIELDS}
    compactions = sum(e.kind == "compaction" for e in events)
    assert compactions >= 3

    played = simulate(profile_from_events(events, "test"), 100, 50_000)
    total = played.usage_at(100)
    for name, value in measured.items():
        assert getattr(total, name) == pytest.approx(value, rel=0.05), name
    assert played.compactions == compactions
    assert cost(SONNET, total) == pytest.approx(cost(SONNET, Usage(**measured)), rel=0.02)


PROFILE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _money(text: str) -> float:
    return float(text.strip().lstrip("$").replace(",", ""))


def test_dry_run_prints_the_plan_and_a_range_and_spends_nothing(tmp_path, monkeypatch, capsys) -> None:
    root, scripts = make_root(tmp_path), make_scripts(tmp_path)
    monkeypatch.setenv("WORKBENCH_ROOT", str(root))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # no key: a run would refuse, a dry run needs none
    out = tmp_path / "bench"
    with FakeAnthropic() as fake:  # where a request would go, were one made
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        argv = ["bench", "--tasks", "scale_add", "scale_add2", "--models", f"anthropic:{SONNET}", "scripted:good",
                "--script", f"good={scripts['good']}", "--conditions", "unguided,all", "--seeds", "2",
                "--budget", "40", "--mode", "interpret", "--out", str(out), "--dry-run"]  # fmt: skip
        assert main(argv) == 0
        assert fake.requests == []
    assert not out.exists()  # nothing written: no plan, no sessions, no lock
    text = capsys.readouterr().out
    assert "2 tasks x 2 conditions (unguided, all) x 2 models x 2 repeats = 16 sessions of up to 40 turns" in text
    assert "0 finished, 0 partial, 0 stopped by the bench's cost cap, 16 not started" in text
    line = next(line for line in text.splitlines() if line.strip().startswith(f"anthropic:{SONNET}:"))
    low, high = (_money(v) for v in line.split("sessions to run, ")[1].split(" (")[0].split(" - "))
    run = simulate(PROFILE, 40, 200_000)
    assert high == pytest.approx(8 * cost(SONNET, run.usage_at(40)), abs=0.01)  # 8 sessions run all 40 turns
    assert low == pytest.approx(8 * cost(SONNET, run.usage_at(10)), abs=0.01)  # ... or end at turn 10
    assert 0 < low < high
    assert "scripted:good: 8 sessions to run; unknown" in text  # no price: unknown, never $0
    assert "without scripted:good: unknown" in text
    assert "assumes:" in text and "ends at turn 10 (25% of the budget; an assumption)" in text


def test_a_session_cap_bounds_the_high_end(tmp_path, monkeypatch, capsys) -> None:
    root = make_root(tmp_path)
    monkeypatch.setenv("WORKBENCH_ROOT", str(root))
    argv = ["bench", "--tasks", "scale_add", "--models", f"anthropic:{SONNET}", "--conditions", "unguided",
            "--budget", "350", "--mode", "interpret", "--out", str(tmp_path / "b"), "--dry-run"]  # fmt: skip
    assert main([*argv, "--max-cost", "2"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "sessions to run" in line)
    high = _money(line.split(" - ")[1].split(" (")[0])
    run = simulate(PROFILE, 350, 200_000)
    per_turn = [cost(SONNET, run.usage_at(t)) for t in range(1, 351)]
    stop = next(c for c in per_turn if c >= 2)  # the first turn at or over the cap ends it
    assert high == pytest.approx(stop, abs=0.01) and 2 <= high < per_turn[-1]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--max-cost", "-1"], "--max-cost must be a positive number of USD, not -1"),
        (["--max-bench-cost", "0"], "--max-bench-cost must be a positive number of USD, not 0"),
        (["--max-bench-cost", "nan"], "--max-bench-cost must be a positive number of USD, not nan"),
        (["--wall-clock", "-5"], "--wall-clock must be a positive number of seconds, not -5"),
        (["--max-bench-cost", "5"], "--max-bench-cost cannot count the spend of scripted:good: no price is known"),
    ],
)
def test_bad_caps_are_one_line_errors(tmp_path, monkeypatch, capsys, extra, message) -> None:
    root, scripts = make_root(tmp_path), make_scripts(tmp_path)
    monkeypatch.setenv("WORKBENCH_ROOT", str(root))
    argv = ["bench", "--tasks", "scale_add", "--models", "scripted:good", "--script", f"good={scripts['good']}",
            "--conditions", "unguided", "--mode", "interpret", "--out", str(tmp_path / "b"), "--dry-run",
            *extra]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "b").exists()
