"""A sessions folder that cannot hold a new session: one line and exit status 2, and nothing left half made."""

from __future__ import annotations

import errno
from pathlib import Path

from workbench import cli
from workbench.session import store

SCRIPT = Path(__file__).resolve().parents[2] / "workbench" / "agent" / "scripts" / "rmsnorm_residual_guided.json"


def run(sessions: Path) -> list[str]:
    return ["run", "rmsnorm_residual", "--provider", "scripted", "--script", str(SCRIPT), "--sessions", str(sessions)]


def test_a_sessions_path_that_is_not_a_folder_is_one_line(tmp_path, capsys):
    taken = tmp_path / "sessions"
    taken.write_text("a file where the folder should be\n")
    assert cli.main(run(taken)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("workbench: error: cannot create a session in"), err
    assert taken.read_text() == "a file where the folder should be\n"


def test_a_disk_that_fills_while_the_workspace_is_made_leaves_no_half_session(tmp_path, capsys, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "create_workspace", full)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "earlier-session").mkdir()  # what was saved before stays
    assert cli.main(run(sessions)) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err
    assert [p.name for p in sessions.iterdir()] == ["earlier-session"]
