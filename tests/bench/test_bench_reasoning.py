"""`workbench bench --thinking / --reasoning-effort`: each reaches the models of its provider, is kept in the plan
(so a resume runs with it) and in each session's provider; a value the API would refuse is one line, exit 2."""

from __future__ import annotations

import argparse

import pytest
from bench_fixtures import make_root, make_scripts

from workbench.bench.cli import add_parser, main, plan_from_args
from workbench.bench.plan import BenchPlan
from workbench.bench.sessions import model_spec


def _args(*extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["bench", "--tasks", "scale_add", "--conditions", "unguided", "--mode", "interpret",
                              *extra])  # fmt: skip


def test_each_option_goes_to_its_providers_models_and_survives_the_plan_file(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_ROOT", str(make_root(tmp_path)))
    plan = plan_from_args(_args("--models", "anthropic:claude-sonnet-4-5", "openai:gpt-5", "--thinking", "4096",
                                "--reasoning-effort", "high"))  # fmt: skip
    by_provider = {m.provider: m for m in BenchPlan.from_dict(plan.to_dict()).models}
    assert (by_provider["anthropic"].thinking, by_provider["anthropic"].reasoning_effort) == (4096, None)
    assert (by_provider["openai"].thinking, by_provider["openai"].reasoning_effort) == (None, "high")
    assert model_spec(by_provider["anthropic"]).thinking == 4096
    assert model_spec(by_provider["openai"]).reasoning_effort == "high"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--models", "anthropic:claude-sonnet-4-5", "--thinking", "100"], "the thinking budget is 1024 to"),
        (
            ["--models", "anthropic:claude-sonnet-4-5", "--reasoning-effort", "low"],
            "--reasoning-effort is for openai models, and --models names none",
        ),  # fmt: skip
        (["--models", "scripted:good", "--thinking", "2048"], "--thinking is for anthropic models"),
    ],
)
def test_a_value_the_api_would_refuse_is_one_line(tmp_path, monkeypatch, capsys, extra, message) -> None:
    monkeypatch.setenv("WORKBENCH_ROOT", str(make_root(tmp_path)))
    scripts = make_scripts(tmp_path)
    argv = ["bench", "--tasks", "scale_add", "--conditions", "unguided", "--mode", "interpret", "--script",
            f"good={scripts['good']}", "--out", str(tmp_path / "b"), "--dry-run", *extra]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "b").exists()
