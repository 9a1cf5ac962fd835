"""Compare two sessions from the home screen; the speedup plot; branching a replay at its cursor."""

import json
import shutil

import pytest
from conftest import REPO
from textual.widgets import DataTable
from tui_helpers import EXAMPLES, GUIDED, UNGUIDED, app_test, wait_until

from workbench.session.events import EvalResult, Submission
from workbench.session.log import read_log
from workbench.tui.app import WorkbenchApp
from workbench.tui.compare_screen import CompareScreen
from workbench.tui.curve import speedup_curve
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen
from workbench.tui.replay_screen import ReplayScreen
from workbench.tui.widgets.plot import UNTIMED, SpeedupPlot
from workbench.tui.widgets.timing import TimingPanel


@pytest.fixture
def project_root(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return REPO


async def mark(pilot, app, *folders):
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.sessions)
    table = app.screen.query_one("#sessions", DataTable)
    table.focus()
    for folder in folders:
        table.move_cursor(row=table.get_row_index(str(folder)))
        await pilot.press("c")


async def open_compare(pilot, app, key="C"):
    await mark(pilot, app, GUIDED, UNGUIDED)
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.query("#diff"))
    return app.screen


def column(table, row):
    return [str(cell) for cell in table.get_row(row)]


@app_test
async def test_compare_from_home_shows_both_conditions_untimed_and_moves_both_transcripts(project_root):
    app = WorkbenchApp(sessions=EXAMPLES)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_compare(pilot, app)
        summary = screen.query_one("#compare-summary", DataTable)
        assert column(summary, "condition")[1:] == ["guided L123", "unguided"]
        assert column(summary, "best speedup")[1:] == ["untimed", "untimed"]
        assert column(summary, "first correct submission")[1:] == ["turn 6", "turn 6"]
        assert column(summary, "JSdesign")[1:] == ["not judged", "not judged"]
        assert column(summary, "tokens in/out/cache")[1].startswith("21,284 / 1,280")
        assert UNTIMED in screen.plot.plain() and screen.plot.plain().count("S") >= 2
        assert screen.cursor == 6 and screen.diff_text == ""  # the final solutions are the same
        a, b = screen.transcripts
        await pilot.press("home")
        assert {e.turn for e in a.shown} == {e.turn for e in b.shown} == {0}
        await pilot.press("right", "right")
        assert screen.cursor == 2
        assert max(e.turn for e in a.shown) == max(e.turn for e in b.shown) == 2
        removed = [line for line in screen.diff_text.splitlines() if line.startswith("-") and "/ BLOCK + eps" in line]
        added = [line for line in screen.diff_text.splitlines() if line.startswith("+") and "n_cols)" in line]
        assert removed and added
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))


@app_test
async def test_enter_compares_once_two_are_marked_and_c_unmarks(project_root):
    app = WorkbenchApp(sessions=EXAMPLES)
    async with app.run_test(size=(160, 48)) as pilot:
        await mark(pilot, app, GUIDED)
        home = app.screen
        await pilot.press("c")  # unmarks
        assert home.marked == []
        await pilot.press("C")  # nothing marked: a warning, no compare
        assert isinstance(app.screen, HomeScreen)
        await open_compare(pilot, app, key="enter")


def test_the_plot_is_untimed_for_interpret_sessions_and_marks_submissions():
    curve = speedup_curve(read_log(GUIDED / "events.jsonl").events)
    assert not curve.timed and [m.correct for m in curve.marks] == [None, False, True, True, None, True]
    assert [m.turn for m in curve.marks if m.submitted] == [6]
    text = SpeedupPlot([("g", curve)], cursor=3).plain(40)
    assert UNTIMED in text and "·✗✓✓·✓" in text and text.splitlines()[2].rstrip().endswith("S")


def test_the_plot_draws_the_best_correct_speedup_so_far():
    def result(correct, speedup):
        return {"correct": correct, "speedup_geomean": speedup}

    events = [EvalResult(turn=1, by="agent", summary="", result=result(True, 1.0)),
              EvalResult(turn=2, by="agent", summary="", result=result(False, 9.0)),
              Submission(turn=3, by="agent", final=True, summary="", result=result(True, 2.0))]  # fmt: skip
    curve = speedup_curve(events)
    assert curve.timed and [m.best for m in curve.marks] == [1.0, 1.0, 2.0]
    text = SpeedupPlot([("t", curve)]).plain(40)
    assert "▅▅█" in text and "2.00x" in text and UNTIMED not in text


@app_test
async def test_the_replay_timing_panel_plots_the_session(project_root):
    app = WorkbenchApp(sessions=EXAMPLES)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(UNGUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query(TimingPanel))
        await pilot.press("home", "right", "right")
        panel = app.screen.query_one(TimingPanel)
        assert panel.plot.cursor == 2 and UNTIMED in panel.plot.plain()


def copy_examples(tmp_path):
    root = tmp_path / "sessions"
    shutil.copytree(EXAMPLES, root / "examples")
    return root, root / "examples" / GUIDED.name


@app_test
async def test_branching_a_replay_at_turn_two_opens_a_live_session_with_two_inherited_turns(project_root, tmp_path):
    root, parent = copy_examples(tmp_path)
    app = WorkbenchApp(sessions=root)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(parent)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#cursor-bar"))
        await pilot.press("home", "right", "right", "b")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), what="the branch, live")
        folder = app.screen.live.folder
        assert folder.parent == root and app.screen.loop.status.value == "paused"
        await pilot.press("escape")
    app.wait_closed()
    events = read_log(folder / "events.jsonl").events
    assert events[0].parent == {"session": str(parent), "turn": 2}
    assert [e.turn for e in events if e.kind == "turn_end" and e.inherited] == [1, 2]
    assert "/ BLOCK + eps" in (folder / "work" / "solution.py").read_text()


@app_test
async def test_branching_a_session_whose_provider_has_no_key_shows_an_error(project_root, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    root, parent = copy_examples(tmp_path)
    log = parent / "events.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    start = json.loads(lines[0]) | {"provider": "anthropic", "model": "claude-sonnet-4-5", "scripted": False}
    log.write_text(json.dumps(start) + "\n" + "".join(lines[1:]))
    app = WorkbenchApp(sessions=root)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(parent)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#cursor-bar"))
        await pilot.press("b")
        await wait_until(pilot, lambda: any("cannot branch" in n.message for n in app._notifications))
        assert isinstance(app.screen, ReplayScreen)
    assert sorted(p.name for p in root.iterdir()) == ["examples"]
