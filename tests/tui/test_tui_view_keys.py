"""Keys of the session screens: number keys pick tabs (in replay too, where the arrows move the turn cursor), m
widens the editor, and while taken over the editor is modal: it takes the letters, esc leaves it to the screen's
keys (evaluate, submit, hand back, leave), i goes back in."""

import pytest
from conftest import FIXTURES, REPO
from textual.widgets import Markdown, TabbedContent, Tabs
from tui_helpers import GUIDED, app_test, footer_keys, wait_until

from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.help_screen import HelpScreen
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen


@pytest.fixture
def examples(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return WorkbenchApp(sessions=GUIDED.parent)


@app_test
async def test_number_keys_pick_tabs_in_replay_with_the_tab_bar_focused(examples):
    app = examples
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        screen = app.screen
        tabs = screen.query_one(TabbedContent)
        screen.query_one(Tabs).focus()  # where the arrows would move between tabs, were they not the cursor's
        await pilot.press("2")
        await wait_until(pilot, lambda: tabs.active == "tab-task")
        task_md = screen.query_one("#task-md", Markdown)
        await wait_until(pilot, lambda: "sliding-window maximum" in task_md.source.lower())
        await pilot.press("4")
        await wait_until(pilot, lambda: tabs.active == "tab-ladder")
        await wait_until(pilot, lambda: "Design ladder" in screen.query_one("#ladder-md", Markdown).source)
        cursor = screen.cursor
        await pilot.press("left")
        assert screen.cursor == cursor - 1 and tabs.active == "tab-ladder"  # the arrows still move the cursor
        await pilot.press("3", "1")
        await wait_until(pilot, lambda: tabs.active == "tab-transcript")
        assert "1" in footer_keys(screen)  # shown as 1-4
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = {text: keys for keys, text, _ in app.screen.keys}
        assert rows["Tabs"] == "1-4" and rows["Ladder tab"] == "4"
        assert "m" in rows.values()


@app_test
async def test_m_widens_the_editor_to_the_whole_body_and_back(examples):
    app = examples
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        screen = app.screen
        await pilot.pause()
        narrow = screen.editor.region
        await pilot.press("m")
        await pilot.pause()
        wide = screen.editor.region
        assert wide.width == 160 and wide.height > narrow.height and narrow.width < 80
        assert not screen.query_one("#left-pane").display and not screen.query_one("#timing").display
        await pilot.press("right")  # the turn keys still work on the wide editor
        await pilot.press("m")
        await pilot.pause()
        assert screen.editor.region == narrow and screen.query_one("#left-pane").display


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)


def kinds(screen) -> list[str]:
    return [e.kind for e in screen.transcript.shown]


@app_test
async def test_taken_over_the_editor_takes_letters_and_esc_gives_the_keys_back(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        screen = app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
        await pilot.press("t")
        await wait_until(pilot, lambda: screen.loop.status == LoopState.TAKEN_OVER and screen.editor.has_focus)
        source = screen.editor.text
        await pilot.press("e", "u", "t")  # typed: no eval, no submission, no hand back
        await pilot.pause()
        assert screen.editor.text != source and "eut" in screen.editor.text.replace("\n", "")
        assert screen.loop.status == LoopState.TAKEN_OVER and "eval_result" not in kinds(screen)
        keys = footer_keys(screen)
        assert "escape" in keys and screen.active_bindings["escape"].binding.action == "leave_editor"
        await pilot.press("escape")  # leaves the editor, not the screen
        await wait_until(pilot, lambda: not screen.editor.has_focus)
        assert app.screen is screen and screen.active_bindings["escape"].binding.action == "back"
        assert {"e", "u", "t", "i"} <= footer_keys(screen)
        screen.editor.load_text(source)  # a kernel that passes: the script's own
        await pilot.press("e")
        await wait_until(pilot, lambda: "eval_result" in kinds(screen), what="the eval")
        await pilot.press("i")  # back into the editor
        assert screen.editor.has_focus
        await pilot.press("escape", "u")
        await wait_until(pilot, lambda: "submission" in kinds(screen), what="the submission")
        await wait_until(pilot, lambda: not screen.busy)
        await pilot.press("t")
        await wait_until(pilot, lambda: screen.loop.status != LoopState.TAKEN_OVER, what="the hand back")
        assert screen.editor.read_only
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen), what="leaving the screen")
    app.wait_closed()


def footer_line(app) -> str:
    """The footer as painted: the screen's last line."""
    return app.screen._compositor.render_strips()[-1].text


@app_test
async def test_at_80x24_the_taken_over_footer_keeps_evaluate_submit_and_note(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        screen = app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
        await pilot.press("t")
        await wait_until(pilot, lambda: screen.loop.status == LoopState.TAKEN_OVER and screen.editor.has_focus)
        # the footer is painted a moment after the focus moves: waited for, not slept on (a loaded machine)
        await wait_until(pilot, lambda: "esc Leave editor" in footer_line(app), what="the editing footer")
        editing = footer_line(app)  # only what works while typing: no letter keys, no /
        assert "^t" in editing and "Evaluate" not in editing and "Search" not in editing
        await pilot.press("escape")
        await wait_until(pilot, lambda: "esc Home" in footer_line(app), what="the screen's footer")
        keys = footer_line(app)
        assert all(key in keys for key in ("esc Home", "e Evaluate", "u Submit", "n Note", "t Take over")), keys
    app.wait_closed()
