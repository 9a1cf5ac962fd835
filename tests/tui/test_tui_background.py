"""A session goes on when its screen is left: the home screen shows it live (turn, state, best, cost), and opening
it again attaches to the same run, with everything it did meanwhile."""

import pytest
from textual.widgets import DataTable
from tui_helpers import app_test, slow_script, wait_until

from workbench.session.log import read_log
from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    scripts = slow_script(tmp_path / "scripts")
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[scripts], mode="interpret", budget=20)


def row_of(home: HomeScreen, folder) -> dict[str, str]:
    table = home.query_one("#sessions", DataTable)
    cells = table.get_row(str(folder))
    return dict(zip(home.columns, (str(c) for c in cells), strict=True))


@app_test
async def test_leave_a_running_session_and_come_back_to_it_still_running(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        home = app.screen
        screen = app.start_session("scale_add", "", "scripted")
        await wait_until(pilot, lambda: screen.is_mounted and screen.progress.turn >= 1, what="the first turn")
        run, folder = screen.run, screen.live.folder
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is home)
        assert run.loop.status == LoopState.RUNNING  # leaving did not interrupt it

        # home shows it live: its turns go up while nobody looks at its screen
        left_at = run.progress.turn
        await wait_until(pilot, lambda: int(row_of(home, folder)["turns"]) > left_at, what="a turn shown on home")
        assert row_of(home, folder)["outcome"] == "running" and row_of(home, folder)["cost"] == "n/a"

        # open it again: the same run, everything it did meanwhile on screen, and it goes on
        table = home.query_one("#sessions", DataTable)
        table.focus()
        table.move_cursor(row=table.get_row_index(str(folder)))
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
        again = app.screen
        assert again is not screen and again.run is run
        shown = len(again.transcript.shown)
        assert shown >= len([e for e in read_log(folder / "events.jsonl").events if e.turn <= left_at])
        await wait_until(pilot, lambda: again.progress.end is not None, what="the session's end")
        assert again.progress.end.reason == "submitted" and len(again.transcript.shown) > shown
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    assert [e.reason for e in events if e.kind == "session_end"] == ["submitted"]
    assert not any(e.kind in ("interrupt", "session_resumed") for e in events)
    seqs = [e.seq for e in events]
    assert seqs == sorted(set(seqs))


@app_test
async def test_quitting_the_app_stops_its_sessions_resumably(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        screen = app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
        await pilot.press("escape")
        folder = screen.live.folder
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    assert events[-1].kind == "session_end" and events[-1].reason == "interrupted"
