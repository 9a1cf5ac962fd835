"""Snapshots of the home and replay screens (pytest-textual-snapshot; `--snapshot-update` to accept)."""

import time

import pytest
from conftest import REPO
from tui_helpers import EXAMPLES, GUIDED, wait_until

from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen

SIZE = (140, 40)


@pytest.fixture
def app(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    monkeypatch.setenv("TZ", "UTC")  # the sessions' dates
    time.tzset()
    yield WorkbenchApp(sessions=EXAMPLES)
    monkeypatch.undo()
    time.tzset()


def test_home_screen(app, snap_compare):
    async def loaded(pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)

    assert snap_compare(app, run_before=loaded, terminal_size=SIZE)


def test_replay_at_turn_three(app, snap_compare):
    async def at_turn_three(pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#cursor-bar"))
        await pilot.press("home", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, run_before=at_turn_three, terminal_size=SIZE)
