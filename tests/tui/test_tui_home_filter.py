"""/ on the home screen filters the task and session lists as one types (any case, any column shown); the filter
stays visible while it holds, enter goes to the list, esc clears it."""

import pytest
from conftest import REPO
from textual.widgets import DataTable, Input, Static
from tui_helpers import EXAMPLES, RMSNORM_UNGUIDED, app_test, footer_keys, wait_until

from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen


@pytest.fixture
def app(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return WorkbenchApp(sessions=EXAMPLES)


def column(table: DataTable, index: int) -> list[str]:
    return [str(table.get_row_at(i)[index]) for i in range(table.row_count)]


@app_test
async def test_slash_filters_both_lists_and_esc_clears(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)
        home = app.screen
        tasks, sessions = home.query_one("#tasks", DataTable), home.query_one("#sessions", DataTable)
        all_tasks = tasks.row_count
        assert all_tasks > 10 and sessions.row_count == 5 and "/" in {b.key_display for b in home.BINDINGS}
        await pilot.press("slash")
        field = home.query_one("#filter", Input)
        assert field.has_focus and field.display
        await pilot.press(*"RMS")
        await wait_until(pilot, lambda: tasks.row_count < all_tasks)
        assert column(tasks, 0) and all("rms" in f"{name} {home.titles[name]}".lower() for name in column(tasks, 0))
        assert sessions.row_count == 2
        title = str(home.query_one("#tasks-title", Static).render())
        assert "filter “RMS”" in title and f"{tasks.row_count} of {all_tasks}" in title
        await pilot.press(*"norm_residual-ungu")
        await wait_until(pilot, lambda: sessions.row_count == 1)
        assert tasks.row_count == 0 and column(sessions, 8) == [RMSNORM_UNGUIDED.name]
        assert "1 of 5" in str(home.query_one("#sessions-title", Static).render())
        await pilot.press("enter")  # to the list that has rows
        assert sessions.has_focus and field.display  # the filter stays in view
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert app.screen.folder == RMSNORM_UNGUIDED  # the row under the cursor of the filtered list
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is home)
        assert column(sessions, 8) == [RMSNORM_UNGUIDED.name] and "escape" in footer_keys(home)  # kept on coming back
        await pilot.press("escape")
        await wait_until(pilot, lambda: tasks.row_count == all_tasks and sessions.row_count == 5)
        assert not field.display and field.value == "" and "filter" not in str(home.query_one("#tasks-title").render())
        await pilot.press("slash", "x", "escape")  # esc in the field clears it too
        await wait_until(pilot, lambda: not field.display and tasks.row_count == all_tasks)
