"""`workbench --sessions relsess`: a sessions folder given relative to where the app runs works for every tool,
the confined shell included (the sandbox is handed absolute paths only)."""

import json
from pathlib import Path

import pytest
from tui_helpers import app_test, wait_until

from workbench.harness.sandbox import confinement
from workbench.session.log import read_log
from workbench.tui.app import WorkbenchApp

TURNS = [
    {"content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "pwd && ls solution.py"}}]},
    {"content": [{"type": "tool_use", "id": "t2", "name": "write_file",
                  "input": {"path": "notes.txt", "content": "written in a relative sessions folder\n"}}]},
    {"content": [{"type": "tool_use", "id": "t3", "name": "bash", "input": {"command": "cat notes.txt"}}]},
]  # fmt: skip


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "scale_add.json").write_text(json.dumps(TURNS))
    monkeypatch.chdir(tmp_path)
    return WorkbenchApp(sessions=Path("relsess"), script_dirs=[Path("scripts")], mode="interpret", budget=3)


@app_test
async def test_bash_runs_in_a_session_under_a_relative_sessions_folder(app, tmp_path):
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.start_session("scale_add", "", "scripted")
        await wait_until(pilot, lambda: screen.is_mounted and screen.run.ended, what="the session's end")
        folder = screen.live.folder
    app.wait_closed()
    assert not folder.is_absolute()
    results = [e for e in read_log(folder / "events.jsonl").events if e.kind == "tool_result"]
    assert [r.name for r in results] == ["bash", "write_file", "bash"]
    assert not any(r.is_error for r in results), [r.text for r in results]
    pwd = results[0].text.splitlines()[0]
    assert pwd == str((tmp_path / folder / "work").resolve()) and "[exit code 0]" in results[0].text
    assert "written in a relative sessions folder" in results[2].text
    if confinement().works:
        assert not any("UNCONFINED" in r.text for r in results)
