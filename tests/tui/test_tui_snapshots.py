"""Snapshots of the home, live session, replay and compare screens at three terminal sizes.

pytest-textual-snapshot; `--snapshot-update` to accept. The sizes are a wide screen, a common window and the
smallest terminal the app supports: each screen must stay readable (no number cut, every panel shown) at all three.
"""

import time
from pathlib import Path

import pytest
from conftest import REPO
from tui_helpers import EXAMPLES, GUIDED, UNGUIDED, shows_every_event, wait_until

from workbench.tui.app import WorkbenchApp
from workbench.tui.compare_screen import CompareScreen
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen

SIZES = [(200, 55), (120, 40), (80, 24)]
sizes = pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")


@pytest.fixture
def app(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    monkeypatch.setenv("TZ", "UTC")  # the sessions' dates
    time.tzset()
    yield WorkbenchApp(sessions=EXAMPLES)
    monkeypatch.undo()
    time.tzset()


@sizes
def test_home_screen(app, snap_compare, size):
    async def loaded(pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)

    assert snap_compare(app, run_before=loaded, terminal_size=size)


@sizes
def test_replay_at_turn_three(app, snap_compare, size):
    async def at_turn_three(pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#cursor-bar"))
        await pilot.press("home", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, run_before=at_turn_three, terminal_size=size)


@pytest.fixture
def live_app(fixture_root, tmp_path, monkeypatch):
    from conftest import FIXTURES

    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    # a fixed session id and a relative sessions folder: the screen's title shows both
    fixed_id = lambda task, levels, human=False: f"{task}-unguided-snapshot"  # noqa: E731
    monkeypatch.setattr("workbench.session.store.new_session_id", fixed_id)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_SEED", "20261201")  # the eval's seeds and quoted values are on screen
    app = WorkbenchApp(sessions=Path("sessions"), script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)
    yield app
    app.wait_closed()


@sizes
def test_live_session_after_two_steps(live_app, snap_compare, size):
    """The session screen of a live scripted session, paused after two stepped turns (an edit and an eval)."""
    from workbench.session.loop import LoopState
    from workbench.tui.live_screen import LiveScreen

    async def two_steps(pilot):
        await wait_until(pilot, lambda: isinstance(live_app.screen, HomeScreen))
        screen = live_app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: isinstance(screen, LiveScreen) and screen.loop.status == LoopState.PAUSED)
        for turn in (1, 2):
            await pilot.press("s")
            await wait_until(pilot, lambda t=turn: screen.progress.turn >= t and screen.loop.status == LoopState.PAUSED)
        await wait_until(pilot, lambda: shows_every_event(screen), what="the turns' events on screen")

    assert snap_compare(live_app, run_before=two_steps, terminal_size=size)


@sizes
def test_compare_at_turn_three(app, snap_compare, size):
    """The sliding_window_max pair side by side at turn 3, where the guided one has taken L1 and the unguided one
    tweaked the direct method: the summary, the plot, both transcripts and the diff."""

    async def at_turn_three(pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)
        app.push_screen(CompareScreen(GUIDED, UNGUIDED))
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.query("#diff"))
        await pilot.press("home", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, run_before=at_turn_three, terminal_size=size)
