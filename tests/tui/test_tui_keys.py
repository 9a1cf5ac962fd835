"""Keys on every screen: ? lists the screen's keys (those that do nothing now marked so), q quits and esc goes back
everywhere, marked sessions are visibly marked, and the footer leaves out keys that do nothing in a state."""

import pytest
from conftest import FIXTURES, REPO
from textual.widgets import DataTable
from tui_helpers import GUIDED, UNGUIDED, app_test, footer_keys, wait_until

from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.compare_screen import CompareScreen
from workbench.tui.help_screen import HelpScreen
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)


@pytest.fixture
def examples(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return WorkbenchApp(sessions=GUIDED.parent)


def help_rows(app) -> dict[str, tuple[str, bool]]:
    return {text: (keys, now) for keys, text, now in app.screen.keys}


@app_test
async def test_help_lists_every_key_of_the_live_screen_and_which_do_nothing_now(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        screen = app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
        assert not {"e", "u", "ctrl+e", "i"} & footer_keys(screen)  # nothing to evaluate or interrupt while paused
        palette = {command.title for command in app.get_system_commands(screen)}
        assert {"Step", "Run / pause"} <= palette and not {"Evaluate now", "Hand to a model", "Interrupt"} & palette
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = help_rows(app)
        assert rows["Step"] == ("s", True) and rows["Evaluate"] == ("e", False)  # listed all the same
        assert rows["Home"] == ("escape", True) and "q" in rows["Quit"][0].split() and rows["Guidance"][1]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, what="the app to quit from a session's screen")
    app.wait_closed()


@app_test
async def test_esc_goes_back_and_q_quits_from_replay_and_compare_and_marks_show(examples):
    app = examples
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)
        home = app.screen
        table = home.query_one("#sessions", DataTable)
        table.focus()
        for folder in (GUIDED, UNGUIDED):
            table.move_cursor(row=table.get_row_index(str(folder)))
            await pilot.press("c")
        marked = {str(table.get_cell(str(f), home.columns["task"])) for f in (GUIDED, UNGUIDED)}
        assert marked == {"✓ sliding_window_max"}
        await pilot.press("C")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is home)
        table.move_cursor(row=table.get_row_index(str(UNGUIDED)))  # coming back home put the cursor on the first row
        await pilot.press("c")  # unmarks the row under the cursor
        assert str(table.get_cell(str(UNGUIDED), home.columns["task"])) == "sliding_window_max"
        assert str(table.get_cell(str(GUIDED), home.columns["task"])) == "✓ sliding_window_max"
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        assert "r" not in footer_keys(app.screen) and "b" in footer_keys(app.screen)  # it ended: no resume
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is home)
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, what="the app to quit from replay")
