"""The home screen lists the tasks and the saved example sessions; the catalog behind it."""

import pytest
from conftest import REPO
from textual.widgets import DataTable
from tui_helpers import EXAMPLES, GUIDED, app_test, wait_until

from workbench.tui.app import WorkbenchApp
from workbench.tui.catalog import best_speedups, find_script, find_sessions, summarize
from workbench.tui.home import HomeScreen


@pytest.fixture
def project_root(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return REPO


@app_test
async def test_home_lists_the_tasks_and_the_example_sessions(project_root):
    app = WorkbenchApp(sessions=project_root / "sessions")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        tasks = app.screen.query_one("#tasks", DataTable)
        names = [tasks.get_row_at(i)[0] for i in range(tasks.row_count)]
        assert {"rmsnorm_residual", "cross_entropy", "gram_syrk", "segmented_scan"} <= set(names)
        sessions = app.screen.query_one("#sessions", DataTable)
        rows = [sessions.get_row_at(i) for i in range(sessions.row_count)]
        examples = {row[8]: row for row in rows if row[8].startswith("rmsnorm_residual-")}
        assert {GUIDED.name, "rmsnorm_residual-unguided-20261129-153123-0dc8"} <= set(examples)
        guided = examples[GUIDED.name]
        assert guided[1] == "guided L123" and guided[2] == "scripted/scripted"
        assert guided[3] == "6" and guided[4] == "submitted" and guided[6] == "n/a"  # scripted: no price


def test_a_summary_comes_from_the_log_alone():
    summary = summarize(GUIDED)
    assert (summary.task, summary.condition, summary.turns, summary.outcome) == (
        "rmsnorm_residual", "guided L123", 6, "submitted"
    )  # fmt: skip
    assert summary.ended and summary.correct_submissions == 1


def test_sessions_are_found_one_or_two_folders_deep_and_best_speedups_group_by_condition():
    found = find_sessions(EXAMPLES.parent)
    assert {s.condition for s in found if s.task == "rmsnorm_residual"} >= {"guided L123", "unguided"}
    speedups = best_speedups([s for s in found if s.best_speedup is not None])
    assert all(value > 0 for value in speedups.values())


def test_a_script_is_found_for_the_condition(tmp_path):
    scripts = REPO / "workbench" / "agent" / "scripts"
    assert find_script("rmsnorm_residual", {1, 2, 3}, [scripts]).name == "rmsnorm_residual_guided.json"
    assert find_script("rmsnorm_residual", set(), [scripts]).name == "rmsnorm_residual_unguided.json"
    assert find_script("gram_syrk", set(), [tmp_path, scripts]) is None
