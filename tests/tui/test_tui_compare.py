"""Compare two sessions from the home screen; the speedup plot; branching a replay at its cursor."""

import json
import shutil

import pytest
from conftest import REPO
from textual.widgets import DataTable
from tui_helpers import EXAMPLES, GUIDED, UNGUIDED, app_test, wait_until

from workbench.session.events import EvalResult, Submission
from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.tui.app import WorkbenchApp
from workbench.tui.compare_screen import CompareScreen
from workbench.tui.curve import speedup_curve
from workbench.tui.home import HomeScreen
from workbench.tui.live_screen import LiveScreen
from workbench.tui.replay_screen import ReplayScreen
from workbench.tui.timeline import up_to_turn
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


def session_end(folder):
    return read_log(folder / "events.jsonl").events[-1]


def solution_at(folder, turn):
    return rebuild(up_to_turn(read_log(folder / "events.jsonl").events, turn)).solution


@app_test
async def test_compare_from_home_shows_both_conditions_timed_and_moves_both_transcripts(project_root):
    guided, unguided = session_end(GUIDED), session_end(UNGUIDED)  # what the two logs record of their H200 runs
    assert guided.best_speedup > 10 * unguided.best_speedup  # the story the pair tells: L1 changes the algorithm
    app = WorkbenchApp(sessions=EXAMPLES)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_compare(pilot, app)
        summary = screen.query_one("#compare-summary", DataTable)
        assert column(summary, "condition")[1:] == ["guided L123", "unguided"]
        assert column(summary, "best speedup")[1:] == [f"{guided.best_speedup:.2f}x", f"{unguided.best_speedup:.2f}x"]
        assert column(summary, "first correct submission")[1:] == ["turn 6", "turn 4"]
        assert column(summary, "JSdesign")[1:] == ["not judged", "not judged"]
        tokens = f"{guided.usage['input_tokens']:,} / {guided.usage['output_tokens']:,}"
        assert column(summary, "tokens in/out/cache")[1].startswith(tokens)
        plot = screen.plot.plain()
        assert UNTIMED not in plot and f"{guided.best_speedup:.2f}x" in plot and plot.count("S") >= 2
        assert screen.cursor == 6 and "van Herk" in screen.diff_text  # A ends on the expert, B on the direct method
        a, b = screen.transcripts
        await pilot.press("home")
        assert {e.turn for e in a.shown} == {e.turn for e in b.shown} == {0}
        await pilot.press("right", "right")
        assert screen.cursor == 2 and screen.diff_text == ""  # both begin with the plain rung
        assert max(e.turn for e in a.shown) == max(e.turn for e in b.shown) == 2
        await pilot.press("right")
        lines = screen.diff_text.splitlines()
        assert any(line.startswith("-") and "van Herk / Gil-Werman" in line for line in lines)  # A's L1 rung
        assert "+    BLOCK = 2048" in lines  # B's tweak of the direct method
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


def test_the_plot_draws_the_sessions_timed_speedups_and_marks_submissions():
    events = read_log(GUIDED / "events.jsonl").events
    curve = speedup_curve(events)
    assert curve.timed and [m.correct for m in curve.marks] == [None, True, True, True, True, True]
    assert [m.turn for m in curve.marks if m.submitted] == [6]
    evals = [e.result["speedup_geomean"] for e in events if e.kind == "eval_result"]  # turns 2-5, on the H200
    assert [m.best for m in curve.marks[1:5]] == [max(evals[: i + 1]) for i in range(4)]
    text = SpeedupPlot([("g", curve)], cursor=3).plain(40)
    assert UNTIMED not in text and f"{max(evals):.2f}x" in text and text.splitlines()[2].rstrip().endswith("S")


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
        best = session_end(UNGUIDED).best_speedup
        assert panel.plot.cursor == 2 and UNTIMED not in panel.plot.plain() and f"{best:.2f}x" in panel.plot.plain()


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
    assert (folder / "work" / "solution.py").read_text() == solution_at(GUIDED, 2)  # the plain rung of turn 2
    assert "Ladder rung 0 (plain)" in solution_at(GUIDED, 2)


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
