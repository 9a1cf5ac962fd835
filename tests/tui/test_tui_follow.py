"""A session another process writes (`workbench run` here) is listed on the home screen as it starts and followed
live, read-only, as its turns arrive; once its writer is gone without ending it, it can be resumed here."""

import os
import signal
import subprocess
import sys

import pytest
from conftest import FIXTURE_ROOT, REPO
from textual.widgets import DataTable
from tui_helpers import app_test, footer_keys, slow_script, wait_until

from workbench.session.log import read_log
from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.follow_screen import FollowScreen
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[tmp_path / "scripts"], mode="interpret")


def headless_run(tmp_path, seconds_per_turn: float) -> subprocess.Popen:
    script = slow_script(tmp_path / "scripts", seconds_per_turn) / "scale_add.json"
    command = [sys.executable, "-m", "workbench", "run", "scale_add", "--provider", "scripted", "--script", str(script),
               "--sessions", str(tmp_path / "sessions"), "--mode", "interpret", "--budget", "20"]  # fmt: skip
    env = {**os.environ, "WORKBENCH_ROOT": str(FIXTURE_ROOT), "PYTHONPATH": str(REPO)}
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def follow_it(pilot, app) -> FollowScreen:
    """Wait for home to list the other process's session as running elsewhere, and open it."""
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
    home = app.screen
    table = home.query_one("#sessions", DataTable)
    outcome = lambda: str(table.get_row_at(0)[list(home.columns).index("outcome")]) if table.row_count else ""  # noqa: E731
    await wait_until(pilot, lambda: outcome() == "running elsewhere", what="the session on home")
    table.focus()
    await pilot.press("o")
    await wait_until(pilot, lambda: isinstance(app.screen, FollowScreen) and app.screen.is_mounted)
    return app.screen


@app_test
async def test_a_second_process_session_is_followed_live_as_its_turns_arrive(app, tmp_path):
    writer = headless_run(tmp_path, seconds_per_turn=1.0)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            screen = await follow_it(pilot, app)
            assert screen.editor.read_only and "r" not in footer_keys(screen)  # read-only while its writer runs
            assert "running elsewhere" in screen.query_one("#timing").summary
            assert f"written by pid {writer.pid}" in screen.sub_title
            opened_at = screen.progress.turn
            await wait_until(pilot, lambda: screen.progress.turn > opened_at, what="a turn arriving")
            await wait_until(pilot, lambda: screen.progress.end is not None, what="the end")
            folder = screen.feed.folder
            shown = [e.seq for e in screen.transcript.shown]
        assert writer.wait(60) == 0
    finally:
        writer.kill()
    logged = [e.seq for e in read_log(folder / "events.jsonl").events]
    assert shown == logged  # every event, in order, none twice
    assert opened_at < 5  # it was followed while it ran, not read after its end


@app_test
async def test_a_session_whose_writer_is_gone_can_be_resumed_from_its_follow_screen(app, tmp_path):
    writer = headless_run(tmp_path, seconds_per_turn=3.0)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            screen = await follow_it(pilot, app)
            await wait_until(pilot, lambda: screen.progress.turn >= 1, what="a turn")
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait(30)
            await wait_until(pilot, lambda: "r" in footer_keys(screen), what="resume offered")
            assert "writer gone" in screen.query_one("#timing").summary
            await pilot.press("r")
            await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
            live = app.screen
            assert live.live.folder == screen.feed.folder and live.loop.status == LoopState.PAUSED
            folder = live.live.folder
    finally:
        writer.kill()
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    assert any(e.kind == "session_resumed" for e in events)
