"""A paired result needs confinement: `workbench bench` refuses to run without it unless told, and says so."""

from __future__ import annotations

import json

from bench_fixtures import make_root, make_scripts

from workbench.bench.cli import main


def _argv(scripts: dict, out, *extra: str) -> list[str]:
    # one session whose scripted agent submits a cheat: static checks reject it, so no eval runs
    return ["bench", "--tasks", "scale_add", "--models", "scripted:bad", "--conditions", "unguided",
            "--script", f"bad={scripts['bad']}", "--budget", "3", "--mode", "interpret", "--out", str(out),
            *extra]  # fmt: skip


def test_bench_refuses_to_run_unconfined(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WORKBENCH_ROOT", str(make_root(tmp_path)))
    monkeypatch.setenv("WORKBENCH_NO_SANDBOX", "1")
    out = tmp_path / "bench"
    assert main(_argv(make_scripts(tmp_path), out)) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "--allow-unconfined" in error and "cannot be confined" in error
    assert not out.exists()  # nothing started


def test_bench_allowed_unconfined_records_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WORKBENCH_ROOT", str(make_root(tmp_path)))
    monkeypatch.setenv("WORKBENCH_NO_SANDBOX", "1")
    out = tmp_path / "bench"
    assert main(_argv(make_scripts(tmp_path), out, "--allow-unconfined")) == 0
    assert "UNCONFINED" in capsys.readouterr().err
    runs = [json.loads(line) for line in (out / "confinement.jsonl").read_text().splitlines()]
    assert [(r["confined"], r["reason"]) for r in runs] == [(False, "WORKBENCH_NO_SANDBOX=1 turns it off")]
