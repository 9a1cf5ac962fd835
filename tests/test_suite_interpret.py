"""Acceptance in interpret mode: every expert and every design-ladder rung passes every interpret
workload, and every known-bad solution in guidance/*/wrong/ is rejected for the reason its
`# expect:` line gives."""

from pathlib import Path

import pytest
from conftest import REPO

from workbench.harness import EvalOptions, evaluate
from workbench.harness.result import StaticResult
from workbench.harness.verdict import expected_runtime_verdict, expected_verdict, verdicts
from workbench.tasks import load_task, task_names

TASKS = task_names(REPO)
WRONG = sorted((REPO / "guidance").glob("*/wrong/*.py"))
RUNGS = [(name, rung, path) for name in TASKS for rung, path in load_task(name, REPO).ladder if rung != "expert"]


@pytest.mark.parametrize("name", TASKS)
def test_expert_passes_every_interpret_workload(name):
    task = load_task(name, REPO)
    result = evaluate(task, task.expert_path, EvalOptions(mode="interpret", seeds=3, timeout_s=300))
    assert result.correct, [w.summary() for w in result.workloads] or result.error
    assert {w.name for w in result.workloads} == {w.name for w in task.workloads if w.interpret}


@pytest.mark.parametrize("path", WRONG, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_wrong_solution_is_rejected_for_its_reason(path: Path):
    expected = expected_verdict(path)
    assert expected, f"{path} has no '# expect: KIND:DETAIL' line"
    task = load_task(path.parent.parent.name, REPO)
    result = evaluate(task, path, EvalOptions(mode="interpret", seeds=2, timeout_s=300))
    assert not result.correct
    found = verdicts(result)
    assert expected in found, f"expected {expected}, got {found}: {[w.summary() for w in result.workloads]}"


RUNTIME = [p for p in WRONG if expected_runtime_verdict(p)]


@pytest.mark.parametrize("path", RUNTIME, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_what_the_static_rules_catch_the_runtime_catches_too(path: Path, monkeypatch):
    """The static rules are a speed bump: with them out of the way, the runtime guard must still reject."""
    import workbench.harness.runner as runner

    monkeypatch.setattr(runner, "check_source", lambda source, forbidden=(): StaticResult(ok=True))
    task = load_task(path.parent.parent.name, REPO)
    result = evaluate(task, path, EvalOptions(mode="interpret", seeds=1, timeout_s=300))
    assert expected_runtime_verdict(path) in verdicts(result), [w.summary() for w in result.workloads] or result.error


@pytest.mark.parametrize(("name", "rung", "path"), RUNGS, ids=lambda v: v if isinstance(v, str) else "")
def test_ladder_rung_passes_every_interpret_workload(name, rung, path):
    task = load_task(name, REPO)
    result = evaluate(task, path, EvalOptions(mode="interpret", seeds=2, timeout_s=300))
    assert result.correct, [w.summary() for w in result.workloads] or result.error or result.static.violations


def test_ladders_are_kept_for_all_26_tasks():
    laddered = {name for name, _, _ in RUNGS}
    assert len(laddered) >= 26, f"no ladder: {sorted(set(TASKS) - laddered)}"
