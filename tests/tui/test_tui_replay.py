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


@app_test
async def test_replay_moves_across_turns_and_the_editor_shows_that_turns_solution(project_root):
    app = WorkbenchApp(sessions=project_root / "sessions")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_from_home(pilot, app, GUIDED)
        editor = screen.query_one("#editor", TextArea)
        assert screen.cursor == 6 and editor.read_only
        await pilot.press("home")
        assert screen.cursor == 0 and editor.text == solution_at(GUIDED, 0)
        assert "def solution(x, residual, weight, eps)" in editor.text
        await pilot.press("right", "right")
        assert screen.cursor == 2 and editor.text == solution_at(GUIDED, 2)
        assert "rmsnorm_kernel" in editor.text and "/ BLOCK + eps" in editor.text
        assert screen.progress.last_eval is not None and not screen.progress.last_eval.result["correct"]
        await pilot.press("right_square_bracket")
        assert screen.cursor == 3 and "/ n_cols + eps" in editor.text
        assert screen.progress.last_eval.result["correct"]
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
    expert = run.results["rmsnorm_residual"]["expert"].workloads[0]  # the recorded figures, read back here
    app = WorkbenchApp(sessions=project_root / "sessions")
    async with app.run_test(size=(200, 55)) as pilot:  # wide enough for the tables unstacked
        screen = await open_from_home(pilot, app, GUIDED)
        ladder = screen.query_one("#ladder-md", Markdown)
        screen.query_one(TabbedContent).active = "tab-ladder"
        await wait_until(pilot, lambda: "Design ladder: rmsnorm_residual" in ladder.source, what="the ladder")
        assert f"| {expert.name} | {expert.reference_ms.median * 1e3:.1f} |" in ladder.source
        assert "plain → L1" in ladder.source and run.where("rmsnorm_residual") in ladder.source
        assert "not timed here (interpret mode" in ladder.source  # the example session ran on the CPU
        await pilot.press("home")  # turn 0: no eval yet, and the tab follows the cursor
        await wait_until(pilot, lambda: "The session has no eval yet." in ladder.source, what="the ladder at turn 0")
