"""A bench never deletes a session it cannot read: it reports it, leaves it and counts it as not run."""

from __future__ import annotations

import json
from pathlib import Path

from bench_fixtures import make_root, make_scripts

from workbench.bench.cli import main
from workbench.bench.sessions import session_status


def _argv(scripts: dict[str, Path], out: Path) -> list[str]:
    return ["bench", "--tasks", "scale_add", "--models", "scripted:bad", "--conditions", "unguided", "--script",
            f"bad={scripts['bad']}", "--budget", "3", "--mode", "interpret", "--out", str(out)]  # fmt: skip


def test_a_corrupt_or_newer_log_is_left_reported_and_not_run_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WORKBENCH_ROOT", str(make_root(tmp_path)))
    bench = tmp_path / "bench"
    assert main(_argv(make_scripts(tmp_path), bench)) == 0
    (log,) = (bench / "sessions").glob("*/*/events.jsonl")
    lines = log.read_text().splitlines(keepends=True)
    for damage in ("corrupt", "newer"):
        if damage == "corrupt":
            log.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
        else:
            start = json.loads(lines[0])
            log.write_text(json.dumps({**start, "version": 99}) + "\n" + "".join(lines[1:]))
        before = {p: p.read_bytes() for p in log.parent.rglob("*") if p.is_file()}
        capsys.readouterr()
        assert main(["bench", "--resume", str(bench)]) == 1
        err = capsys.readouterr().err
        assert "could not run" in err and "its log cannot be read" in err, err
        assert {p: p.read_bytes() for p in log.parent.rglob("*") if p.is_file()} == before, "the session was touched"
        assert len(list((bench / "sessions").glob("*/*/events.jsonl"))) == 1, "a second session was started"
        assert session_status(log.parent.parent).state == "unreadable"


def test_a_folder_killed_before_its_first_event_is_started_afresh(tmp_path):
    key_dir = tmp_path / "key"
    torn = key_dir / "scale_add-unguided-1"
    torn.mkdir(parents=True)
    (torn / "events.jsonl").write_text('{"seq": 0, "kind": "session_sta')  # the kill came mid-line
    assert session_status(key_dir).state == "new"
    assert not torn.exists()
