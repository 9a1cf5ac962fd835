"""The new-session form: levels, provider, model, turn budget and base URL reach the session's log;
a bad budget or URL is an error in the form, which stays open."""

import pytest
from conftest import FIXTURES
from textual.widgets import Button, Checkbox, DataTable, Input, Label
from tui_helpers import app_test, choose_provider, footer_keys, wait_until

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
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)


async def open_form(pilot, app) -> NewSessionDialog:
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
    app.screen.query_one("#tasks", DataTable).focus()
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, NewSessionDialog) and app.screen.query(Button))
    return app.screen


@app_test
async def test_the_form_sets_model_budget_and_base_url(app):
    async with app.run_test(size=(160, 48)) as pilot:
        form = await open_form(pilot, app)
        assert form.query_one("#budget", Input).value == "20"  # the app's default budget
        form.query_one("#model", Input).value = "script-v2"
        form.query_one("#budget", Input).value = "7"
        form.query_one("#base-url", Input).value = "http://127.0.0.1:9/v1"
        choose_provider(app, "scripted")
        await pilot.click("#start")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
        start = read_log(app.screen.live.folder / "events.jsonl").start
        assert (start.budget, start.model, start.base_url) == (7, "script-v2", "http://127.0.0.1:9/v1")
        app.screen.loop.stop()
    app.wait_closed()


@app_test
async def test_a_bad_budget_or_url_keeps_the_form_open_with_an_error(app):
    async with app.run_test(size=(160, 48)) as pilot:
        form = await open_form(pilot, app)
        error = form.query_one("#form-error", Label)
        form.query_one("#budget", Input).value = "0"
        await pilot.click("#start")
        await wait_until(pilot, lambda: "budget" in str(error.render()), what="the budget error")
        assert app.screen is form
        form.query_one("#budget", Input).value = "5"
        form.query_one("#base-url", Input).value = "localhost:8000"
        start = form.query_one("#start", Button)  # a button ignores clicks for 0.2 s after a press
        await wait_until(pilot, lambda: not start.has_class("-active"), what="the button to take clicks again")
        await pilot.click("#start")
        await wait_until(pilot, lambda: "base URL" in str(error.render()), what="the URL error")
        assert app.screen is form
        assert not list((app.sessions_root).glob("*"))  # nothing was created


@app_test
async def test_start_paused_waits_for_the_first_step(app):
    """A newcomer steps a demo from turn 1: nothing is asked of the model before s, then exactly one turn runs."""
    async with app.run_test(size=(160, 48)) as pilot:
        form = await open_form(pilot, app)
        choose_provider(app, "scripted")
        await pilot.click("#paused")
        assert form.query_one("#paused", Checkbox).value
        await pilot.click("#start")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.is_mounted)
        screen = app.screen
        await wait_until(pilot, lambda: screen.loop.status == LoopState.PAUSED, what="the paused start")
        await pilot.pause(0.5)
        assert not any(e.kind == "model_request" for e in read_log(screen.live.folder / "events.jsonl").events)
        await pilot.press("s")
        await wait_until(pilot, lambda: screen.progress.turn == 1 and screen.loop.status == LoopState.PAUSED,
                         what="one stepped turn")  # fmt: skip
        assert {"space", "s"} <= footer_keys(screen)
    app.wait_closed()


def test_both_forms_refuse_a_base_url_that_is_not_http_in_the_same_words():
    from workbench.tui.dialogs import base_url_error

    assert base_url_error("localhost:8000/v1") == "the base URL must start with http:// or https://"
    assert base_url_error("http://localhost:8000/v1") is None and base_url_error("") is None
