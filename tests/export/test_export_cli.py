"""`workbench export` as a user runs it: the page written whole, and each bad input a one-line error, exit status 2,
with nothing written and an earlier page left as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import REPO
from export_sessions import GUIDED, UNGUIDED

from workbench.cli.main import main

EXIT_USAGE = 2


def export(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["export", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_writes_one_page_and_no_leftovers(tmp_path):
    out = tmp_path / "page.html"
    proc = subprocess.run([sys.executable, "-m", "workbench", "export", str(GUIDED), "--compare", str(UNGUIDED),
                           "--html", str(out)], capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote {out}"
    assert os.listdir(tmp_path) == ["page.html"]  # the temporary file was renamed, not left beside it
    assert out.stat().st_mode & 0o644 == 0o644 and GUIDED.name in out.read_text()


def test_a_session_is_found_by_its_id_in_the_sessions_folder(tmp_path, capsys):
    code, out, err = export(capsys, GUIDED.name, "--sessions", str(GUIDED.parent), "--html", str(tmp_path / "p.html"))
    assert code == 0 and err == "" and (tmp_path / "p.html").exists()


@pytest.fixture
def earlier_page(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("the page sent yesterday")
    return page


def _only_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("workbench: error: "), err
    return lines[0]


def test_an_unknown_session_is_one_line_and_writes_nothing(tmp_path, capsys, earlier_page):
    code, _, err = export(capsys, str(tmp_path / "no-such-session"), "--html", str(earlier_page))
    assert code == EXIT_USAGE and "no session" in _only_error_line(err)
    code, _, err = export(capsys, str(GUIDED), "--compare", "no-such-id", "--sessions", str(tmp_path),
                          "--html", str(earlier_page))  # fmt: skip
    assert code == EXIT_USAGE and "no-such-id" in _only_error_line(err)
    assert earlier_page.read_text() == "the page sent yesterday" and os.listdir(tmp_path) == ["page.html"]


@pytest.mark.parametrize("damage", ["garbage", "a folder", "empty"])
def test_an_unreadable_log_is_one_line_and_writes_nothing(tmp_path, capsys, earlier_page, damage):
    session = tmp_path / "broken"
    shutil.copytree(GUIDED, session)
    log = session / "events.jsonl"
    if damage == "garbage":
        log.write_text('{"seq": 0, "kind": "session_start"\nnot json\n{}\n')
    elif damage == "a folder":
        log.unlink()
        log.mkdir()
    else:
        log.write_text("")
    code, _, err = export(capsys, str(session), "--html", str(earlier_page))
    assert code == EXIT_USAGE and str(session) in _only_error_line(err)
    assert earlier_page.read_text() == "the page sent yesterday"
    assert sorted(os.listdir(tmp_path)) == ["broken", "page.html"]


def test_out_in_a_missing_folder_is_one_line_and_creates_nothing(tmp_path, capsys):
    out = tmp_path / "missing" / "page.html"
    code, _, err = export(capsys, str(GUIDED), "--html", str(out))
    assert code == EXIT_USAGE and "does not exist" in _only_error_line(err)
    assert os.listdir(tmp_path) == []


def test_a_failed_write_keeps_the_earlier_page_and_leaves_no_temporary_file(tmp_path, capsys, earlier_page,
                                                                            monkeypatch):  # fmt: skip
    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("workbench.export.write.os.replace", disk_full)
    code, _, err = export(capsys, str(GUIDED), "--html", str(earlier_page))
    assert code == EXIT_USAGE and "No space left on device" in _only_error_line(err)
    assert earlier_page.read_text() == "the page sent yesterday" and os.listdir(tmp_path) == ["page.html"]
