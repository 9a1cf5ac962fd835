"""solution.py edited outside the app while the person has taken over: in $EDITOR (ctrl+e) or saved by
anything else; the save is recorded as the person's edit and evaluated."""

import shlex

import pytest
from conftest import FIXTURES
from textual.widgets import TextArea
from tui_helpers import app_test, footer_keys, wait_until

from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.live_screen import LiveScreen

SAVED_IN_EDITOR = "# saved in $EDITOR\n"
SAVED_BY_A_SHELL = "# saved by a shell\n"


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    new = tmp_path / "new_solution.py"
    new.write_text(SAVED_IN_EDITOR)
    monkeypatch.setenv("EDITOR", f"sh -c 'cp {shlex.quote(str(new))} \"$1\"' sh")
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)


def evals_by_human(screen):
    return [e for e in screen.transcript.shown if e.kind == "eval_result" and e.by == "human"]


def edits(screen):
    return [e for e in screen.transcript.shown if e.kind == "human" and e.action == "edit"]


async def taken_over(pilot, app) -> LiveScreen:
    screen = app.start_session("scale_add", "", "scripted", paused=True)
    await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED, what="the session")
    await pilot.press("t")
    await wait_until(pilot, lambda: screen.loop.status == LoopState.TAKEN_OVER and not screen.editor.read_only)
    # the editor takes the focus a moment later: an esc before that is the screen's (back to Home), not the editor's
    await wait_until(pilot, lambda: screen.editing, what="the editor's focus")
    await pilot.press("escape")  # out of the editor: the screen's keys work again
    return screen


@app_test
async def test_ctrl_e_opens_editor_and_its_save_is_recorded_and_evaluated(app):
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await taken_over(pilot, app)
        await pilot.press("ctrl+e")
        await wait_until(pilot, lambda: evals_by_human(screen), what="the eval of the save")
        assert screen.query_one("#editor", TextArea).text == SAVED_IN_EDITOR
        assert len(edits(screen)) == 1
        assert (screen.loop.work / "solution.py").read_text() == SAVED_IN_EDITOR
        assert screen.progress.last_eval is not None and screen.progress.last_eval.by == "human"

        # a save by anything else is seen by the watcher
        (screen.loop.work / "solution.py").write_text(SAVED_BY_A_SHELL)
        await wait_until(pilot, lambda: len(evals_by_human(screen)) == 2, what="the watcher's pick-up")
        assert screen.editor.text == SAVED_BY_A_SHELL and len(edits(screen)) == 2
    app.wait_closed()


@app_test
async def test_editor_key_needs_a_takeover_and_saves_while_the_agent_drives_are_only_pointed_out(app, monkeypatch):
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
        # the key means nothing while the agent drives: left out of the footer, and $EDITOR is not run
        assert "ctrl+e" not in footer_keys(screen) and "t" in footer_keys(screen)
        await pilot.press("ctrl+e")
        await pilot.pause(0.3)
        assert SAVED_IN_EDITOR not in (screen.loop.work / "solution.py").read_text()
        (screen.loop.work / "solution.py").write_text(SAVED_BY_A_SHELL)
        await wait_until(pilot, lambda: any("changed outside" in n.message for n in app._notifications))
        assert not edits(screen) and not evals_by_human(screen)
    app.wait_closed()
