"""`workbench run | resume | branch | replay` with --thinking and --reasoning-effort: recorded in the session's
session_start, shown with its settings, kept by a resume and a branch unless overridden; a bad value is one line and
exit status 2, with nothing made and nothing saved changed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from agent.fake_anthropic import FakeAnthropic, Reply, ToolUse
from conftest import FIXTURE_ROOT

from workbench.cli.main import main
from workbench.session.log import read_log


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")


def reply(body: dict[str, Any]) -> Reply:
    turn = 1 + max([int(n) for n in re.findall(r"\[turn (\d+)/", json.dumps(body["messages"]))] or [0])
    return Reply(text=f"Turn {turn}.", tool_uses=[ToolUse("list_files", {})], thinking=f"Thinking at turn {turn}.")


def only_session(root: Path) -> Path:
    (folder,) = [p for p in root.iterdir() if p.is_dir()]
    return folder


def test_thinking_is_recorded_shown_and_kept_by_resume_and_branch(tmp_path, capsys):
    with FakeAnthropic() as fake:
        fake.push(*[reply] * 2)  # then the fake has nothing more: the session fails, and can be resumed
        code = main(["run", "scale_add", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url",
                     fake.url, "--thinking", "4096", "--budget", "6", "--mode", "interpret", "--sessions",
                     str(tmp_path)])  # fmt: skip
        out = capsys.readouterr().out
        assert code == 1 and "; thinking 4,096 tokens" in out.splitlines()[0]
        assert "thinking: Thinking at turn 1." in out
        folder = only_session(tmp_path)
        assert read_log(folder / "events.jsonl").start.thinking_budget == 4096

        before = len(fake.requests)
        fake.push(*[reply] * 2)
        assert main(["resume", str(folder)]) == 1
        assert "; thinking 4,096 tokens" in capsys.readouterr().out.splitlines()[0]
        resumed = [r.body.get("thinking") for r in fake.requests[before:]]
        assert resumed[:2] == [{"type": "enabled", "budget_tokens": 4096}] * 2

        before = len(fake.requests)
        fake.push(reply)
        branches = tmp_path / "branches"
        assert main(["branch", str(folder), "--turn", "1", "--thinking", "0", "--sessions", str(branches)]) == 1
        capsys.readouterr()
        assert "thinking" not in fake.requests[before].body  # 0 turns it off for the branch
        assert fake.rejected == []
    branch = only_session(branches)
    assert read_log(branch / "events.jsonl").start.thinking_budget is None

    assert main(["replay", str(folder)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert "thinking 4,096 tokens" in shown[0]
    assert "[  1] thinking: Thinking at turn 1." in shown and "[  1] agent: Turn 1." in shown


@pytest.mark.parametrize(("options", "words"), [
    (["--thinking", "lots"], "--thinking wants a number of tokens"),
    (["--thinking", "512"], "the thinking budget is 1024 to"),
    (["--thinking", "100000"], "the thinking budget is 1024 to"),
    (["--reasoning-effort", "max"], "--reasoning-effort is one of low, medium, high, not 'max'"),
    (["--provider", "openai", "--thinking", "2048"], "a thinking budget is for the anthropic provider, not openai"),
    (["--reasoning-effort", "high"], "a reasoning effort is for the openai provider"),
    (["--provider", "scripted", "--script", str(FIXTURE_ROOT), "--thinking", "2048"],
     "a thinking budget is for the anthropic provider, not scripted"),
])  # fmt: skip
def test_a_bad_value_is_one_line_and_exit_2_with_no_session_made(tmp_path, capsys, options, words):
    assert main(["run", "scale_add", "--mode", "interpret", "--sessions", str(tmp_path), *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
    assert list(tmp_path.iterdir()) == []


def test_a_bad_value_on_resume_changes_nothing_saved(tmp_path, capsys):
    with FakeAnthropic() as fake:
        fake.push(reply)
        main(["run", "scale_add", "--provider", "anthropic", "--base-url", fake.url, "--thinking", "2048",
              "--budget", "4", "--mode", "interpret", "--sessions", str(tmp_path)])  # fmt: skip
    folder = only_session(tmp_path)
    log = (folder / "events.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["resume", str(folder), "--reasoning-effort", "high"]) == 2
    assert main(["resume", str(folder), "--thinking", "100"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "reasoning effort is for the openai provider" in err[0] and "1024" in err[1]
    assert (folder / "events.jsonl").read_bytes() == log
