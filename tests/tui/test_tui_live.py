"""A live scripted session on the fixture task: turns arrive, pause, step, take over, edit, hand back."""

import json

import pytest
from conftest import FIXTURE_ROOT, FIXTURES
from textual.widgets import Button, DataTable, TextArea
from tui_helpers import app_test, choose_provider, wait_until

from workbench.session.log import read_log
from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.dialogs import NewSessionDialog
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen
from workbench.tui.widgets.timing import TimingPanel

EDIT = "# tuned by a person\n"


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    # the fixture script streamed slowly: with a warm eval worker its five turns can all be over, on a loaded
    # machine, before a key pressed after the first one is handled, and the test is about keys during the turns
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    turns = json.loads((FIXTURES / "scripts" / "scale_add.json").read_text())
    (scripts / "scale_add.json").write_text(json.dumps([{**turn, "delay_s": 0.2} for turn in turns]))
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[scripts], mode="interpret", budget=20)


def human_actions(screen):
    return [e.action for e in screen.transcript.shown if e.kind == "human"]


def turns(screen):
    return screen.progress.turn


@app_test
async def test_a_live_scripted_session_under_the_persons_control(app, tmp_path):
    assert FIXTURE_ROOT.is_dir()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        tasks = app.screen.query_one("#tasks", DataTable)
        assert tasks.get_row_at(0)[0] == "scale_add"
        tasks.focus()
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewSessionDialog) and app.screen.query(Button))
        choose_provider(app, "scripted")
        await pilot.click("#start")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
        screen = app.screen
        assert isinstance(screen, LiveScreen)
        editor = screen.query_one("#editor", TextArea)
        assert editor.read_only and "def solution" in editor.text

        # turns stream in; pause takes effect after the current turn
        await wait_until(pilot, lambda: turns(screen) >= 1, what="the first turn")
        await pilot.press("space")
        timing = screen.query_one(TimingPanel)
        await wait_until(pilot, lambda: "state paused" in timing.summary, what="the pause")
        paused_at = turns(screen)
        assert screen.loop.status == LoopState.PAUSED and f"turn {paused_at}/20" in timing.summary

        # step: one more turn, then paused again
        await pilot.press("s")
        await wait_until(pilot, lambda: human_actions(screen).count("pause") == 2, what="the pause after a step")
        assert turns(screen) == paused_at + 1 and screen.loop.status == LoopState.PAUSED

        # take over: the editor becomes editable; the person edits and evaluates
        await pilot.press("t")
        await wait_until(pilot, lambda: not editor.read_only and editor.has_focus, what="the editable editor")
        assert screen.loop.status == LoopState.TAKEN_OVER
        editor.move_cursor((0, 0))
        await pilot.press("#", "space", "x", "enter")
        editor.insert(EDIT, (0, 0))
        await pilot.press("escape")  # out of the editor: the screen's keys work again
        await pilot.press("e")
        await wait_until(pilot, lambda: any(e.kind == "eval_result" and e.by == "human"
                                            for e in screen.transcript.shown), what="the person's eval")  # fmt: skip
        assert human_actions(screen)[-2:] == ["edit", "evaluate"]
        work = screen.live.folder / "work" / "solution.py"
        assert work.read_text().startswith(EDIT + "# x\n")

        # hand back: the agent is told what changed and goes on
        editor.focus()
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: "handback" in human_actions(screen) and editor.read_only, what="the hand-back")
        await wait_until(pilot, lambda: turns(screen) > paused_at + 1, what="a turn after the hand-back")
        folder = screen.live.folder
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    handback = next(e for e in events if e.kind == "human" and e.action == "handback")
    assert "+# tuned by a person" in handback.text_for_agent
    assert events[-1].kind == "session_end"
