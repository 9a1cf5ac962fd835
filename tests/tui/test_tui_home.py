"""The home screen lists the tasks and the saved example sessions; the catalog behind it."""

import pytest
from conftest import REPO
from textual.widgets import DataTable
from tui_helpers import EXAMPLES, GUIDED, HUMAN, RMSNORM_GUIDED, RMSNORM_UNGUIDED, UNGUIDED, app_test, wait_until

from workbench.session.log import read_log
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
        rows = {row[8]: row for row in (sessions.get_row_at(i) for i in range(sessions.row_count))}
        assert {f.name for f in (GUIDED, UNGUIDED, HUMAN, RMSNORM_GUIDED, RMSNORM_UNGUIDED)} <= set(rows)
        guided, unguided, human = rows[GUIDED.name], rows[UNGUIDED.name], rows[HUMAN.name]
        assert guided[1] == "guided L123" and guided[2] == "scripted/scripted"
        assert guided[3] == "6" and guided[4] == "submitted" and guided[6] == "n/a"  # scripted: no price
        # the best correct speedup each reached on the H200, as its log records it
        assert guided[5] == f"{best_speedup(GUIDED):.2f}x" and unguided[5] == f"{best_speedup(UNGUIDED):.2f}x"
        assert list(human[1:5]) == ["human", "human/person", "0", "submitted"]  # a condition of its own
        # the task's best per condition: the person's tuning is not counted as the unguided agent's
        best = tasks.get_row_at(names.index("sliding_window_max"))[1]  # before the title: seen at 80 columns
        g, h, u = (best_speedup(f) for f in (GUIDED, HUMAN, UNGUIDED))
        assert best == f"guided L123 {g:.2f}x  human {h:.2f}x  unguided {u:.2f}x"


def best_speedup(folder):
    return read_log(folder / "events.jsonl").events[-1].best_speedup


def test_a_summary_comes_from_the_log_alone():
    summary = summarize(GUIDED)
    assert (summary.task, summary.condition, summary.turns, summary.outcome) == (
        "sliding_window_max", "guided L123", 6, "submitted"
    )  # fmt: skip
    assert summary.ended and summary.correct_submissions == 1


def test_sessions_are_found_one_or_two_folders_deep_and_best_speedups_group_by_condition():
    found = find_sessions(EXAMPLES.parent)
    for task in ("rmsnorm_residual", "sliding_window_max"):
        assert {s.condition for s in found if s.task == task} >= {"guided L123", "unguided"}
    speedups = best_speedups([s for s in found if s.best_speedup is not None])
    assert all(value > 0 for value in speedups.values())


def test_a_script_is_found_for_the_condition(tmp_path):
    scripts = REPO / "workbench" / "agent" / "scripts"
    assert find_script("rmsnorm_residual", {1, 2, 3}, [scripts]).name == "rmsnorm_residual_guided.json"
    assert find_script("rmsnorm_residual", set(), [scripts]).name == "rmsnorm_residual_unguided.json"
    assert find_script("gram_syrk", set(), [tmp_path, scripts]) is None
