"""Replay of a saved session: a turn cursor that the transcript, editor and timing panel follow."""

import pytest
from conftest import REPO
from textual.widgets import DataTable, Markdown, TabbedContent, TextArea
from tui_helpers import GUIDED, UNGUIDED, app_test, wait_until

from workbench.session.history import rebuild
from workbench.session.log import read_log
from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen
from workbench.tui.timeline import up_to_turn
from workbench.tui.widgets.timing import TimingPanel


@pytest.fixture
def project_root(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return REPO


def solution_at(folder, turn):
    return rebuild(up_to_turn(read_log(folder / "events.jsonl").events, turn)).solution


async def open_from_home(pilot, app, folder):
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
    table = app.screen.query_one("#sessions", DataTable)
    row = table.get_row_index(str(folder))
    table.focus()
    table.move_cursor(row=row)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay screen")
    return app.screen


def speedup_at(folder, turn):
    """The speedup geomean of the eval the session logged at that turn (its H200 figure)."""
    [event] = [e for e in read_log(folder / "events.jsonl").events if e.kind == "eval_result" and e.turn == turn]
    return event.result["speedup_geomean"]


@app_test
async def test_replay_moves_across_turns_and_the_editor_shows_that_turns_solution(project_root):
    app = WorkbenchApp(sessions=project_root / "sessions")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_from_home(pilot, app, GUIDED)
        editor = screen.query_one("#editor", TextArea)
        assert screen.cursor == 6 and editor.read_only
        await pilot.press("home")
        assert screen.cursor == 0 and editor.text == solution_at(GUIDED, 0)
        assert "def solution(x: torch.Tensor, w: int)" in editor.text and screen.progress.last_eval is None
        await pilot.press("right", "right")
        assert screen.cursor == 2 and editor.text == solution_at(GUIDED, 2)
        assert "Ladder rung 0 (plain): the direct method" in editor.text  # w loads per output
        last = screen.progress.last_eval
        assert last is not None and last.result["correct"] and last.result["device"]["mode"] == "cuda"
        assert last.result["speedup_geomean"] == speedup_at(GUIDED, 2)
        await pilot.press("right_square_bracket")
        assert screen.cursor == 3 and "van Herk / Gil-Werman" in editor.text  # L1: the algorithm changes
        assert screen.progress.last_eval.result["speedup_geomean"] == speedup_at(GUIDED, 3)
        assert speedup_at(GUIDED, 3) > 10 * speedup_at(GUIDED, 2)  # what L1 was worth on the H200
        timing = screen.query_one(TimingPanel)
        await wait_until(pilot, lambda: f"best {speedup_at(GUIDED, 3):.2f}x" in timing.summary, what="the best")
        assert max(e.turn for e in screen.transcript.shown) == 3
        await pilot.press("left_square_bracket", "left")
        assert screen.cursor == 1 and editor.text == solution_at(GUIDED, 1)
        await pilot.press("end")
        assert screen.cursor == 6 and screen.progress.end_reason == "submitted"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))


@app_test
async def test_an_unguided_session_shows_the_guidance_only_on_request_marked_not_given(project_root):
    app = WorkbenchApp(sessions=project_root / "sessions")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(UNGUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.query("#guidance-md"))
        guidance = app.screen.query_one("#guidance-md", Markdown)
        app.screen.query_one(TabbedContent).active = "tab-guidance"  # what the person sees on opening the tab
        await wait_until(pilot, lambda: "unguided" in guidance.source)
        assert "L1" not in guidance.source
        await pilot.press("g")
        assert "Not given to the agent" in guidance.source and "L1 algorithm" in guidance.source


@app_test
async def test_the_ladder_tab_shows_the_recorded_gpu_ladder_beside_the_session_at_the_cursor(project_root):
    from workbench.ladder_report import recorded_run

    run, _ = recorded_run(project_root)
    expert = run.results["sliding_window_max"]["expert"].workloads[0]  # the recorded figures, read back here
    [final] = [e for e in read_log(GUIDED / "events.jsonl").events if e.kind == "submission"]  # timed on the H200
    assert final.result["device"]["name"] == run.device["name"]
    timed = final.result["workloads"][0]
    app = WorkbenchApp(sessions=project_root / "sessions")
    async with app.run_test(size=(200, 55)) as pilot:  # the ladder with a session column is stacked even at 200
        screen = await open_from_home(pilot, app, GUIDED)
        ladder = screen.query_one("#ladder-md", Markdown)
        screen.query_one(TabbedContent).active = "tab-ladder"
        await wait_until(pilot, lambda: "Design ladder: sliding_window_max" in ladder.source, what="the ladder")
        reference = f"| reference | {expert.reference_ms.median * 1e3:.1f} |"
        assert f"| workload | {expert.name} |\n| --- | ---: |\n{reference}" in ladder.source  # a table per workload
        assert "plain → L1" in ladder.source and run.where("sliding_window_max") in ladder.source
        # timed on the ladder's kind of GPU: the session's latency beside the rungs, and the rungs it beats
        assert "not timed here" not in ladder.source and "where the session stands" in ladder.source
        assert expert.name == timed["name"]
        latency = f"| this session | {timed['latency_ms']['median'] * 1e3:.1f} |"
        assert f"{latency}\n| where the session stands | faster than plain" in ladder.source  # L1 left plain behind
        await pilot.press("home")  # turn 0: no eval yet, and the tab follows the cursor
        await wait_until(pilot, lambda: "The session has no eval yet." in ladder.source, what="the ladder at turn 0")
