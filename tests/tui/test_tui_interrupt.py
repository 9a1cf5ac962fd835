"""From the app: interrupt a model stream, take over, submit."""

import json

import pytest
from conftest import FIXTURES
from textual.widgets import Button, DataTable
from tui_helpers import app_test, choose_provider, wait_until

from workbench.session.log import read_log
from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs import NewSessionDialog
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    turns = json.loads((FIXTURES / "scripts" / "scale_add.json").read_text())
    turns[0]["content"][0]["text"] = "Reading the template, slowly. " * 40
    turns[0]["delay_s"] = 0.05  # a stream long enough to interrupt
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "scale_add.json").write_text(json.dumps(turns))
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[scripts], mode="interpret", budget=20)


@app_test
async def test_interrupt_the_stream_then_take_over_and_submit(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.screen.query_one("#tasks", DataTable).focus()
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewSessionDialog) and app.screen.query(Button))
        choose_provider(app, "scripted")
        await pilot.click("#start")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
        screen = app.screen
        assert isinstance(screen, LiveScreen)
        await wait_until(pilot, lambda: any(e.kind == "model_request" for e in screen.transcript.shown),
                         what="the first request")  # fmt: skip
        await pilot.press("i")
        await wait_until(pilot, lambda: screen.loop.status == LoopState.PAUSED, what="the pause after the interrupt")
        folder = screen.live.folder
        events = read_log(folder / "events.jsonl").events
        interrupt = next(e for e in events if e.kind == "interrupt")
        assert interrupt.during == "model" and not any(e.kind == "turn_end" for e in events)

        await pilot.press("t")
        await wait_until(pilot, lambda: screen.loop.status == LoopState.TAKEN_OVER, what="the takeover")
        await pilot.press("escape")
        await pilot.press("u")
        await wait_until(pilot, lambda: any(e.kind == "submission" for e in screen.transcript.shown),
                         what="the person's submission", timeout=120)  # fmt: skip
    app.wait_closed()
    submissions = [e for e in read_log(folder / "events.jsonl").events if e.kind == "submission"]
    assert [s.by for s in submissions] == ["human"]
    assert not submissions[0].result["correct"]  # the template raises NotImplementedError
