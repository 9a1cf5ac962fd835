"""The pool of warm checkers: evals reuse one, and a process that evals under many environments keeps only a few."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from workbench.harness import EvalOptions, checker_pool, evaluate
from workbench.tasks import load_task

FAST = EvalOptions(mode="interpret", seeds=1, timeout_s=120)


def _pool_processes() -> set[int]:
    """Live checkers of this pool, by pid."""
    with checker_pool._POOL_LOCK:
        return {c.proc.pid for c in checker_pool._ALL if c.alive()}


def _gone(pid: int) -> bool:
    return subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0


def _wait_gone(pids: set[int], within_s: float = 30) -> set[int]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and not all(_gone(p) for p in pids):
        time.sleep(0.2)
    return {p for p in pids if not _gone(p)}


def _spare_workers() -> int:
    """Descendants of this process that are a solution worker (a checker prestarts one after each eval)."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                commands[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace")
            except (OSError, IndexError, ValueError):
                continue

    def mine(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return sum(1 for pid, cmd in commands.items() if "solution_side.main" in cmd and "bwrap" not in cmd and mine(pid))


@pytest.fixture
def task(fixture_root):
    return load_task("scale_add", fixture_root)


def test_the_same_environment_reuses_one_checker_and_many_keep_at_most_max_idle(task, monkeypatch):
    first = evaluate(task, task.expert_path, FAST)
    assert first.correct, first.to_dict()
    warm = _pool_processes()
    again = evaluate(task, task.expert_path, FAST)
    assert again.correct and _pool_processes() == warm, "the second eval should reuse the warm checker"

    started: set[int] = set(warm)
    for i in range(checker_pool.MAX_IDLE + 2):  # each environment is a checker of its own
        monkeypatch.setenv("WORKBENCH_POOL_TEST", str(i))
        assert evaluate(task, task.expert_path, FAST).correct
        started |= _pool_processes()
    assert len(started) >= checker_pool.MAX_IDLE + 2
    assert checker_pool.idle_count() <= checker_pool.MAX_IDLE
    kept = _pool_processes()
    assert len(kept) <= checker_pool.MAX_IDLE
    assert not _wait_gone(started - kept), "an evicted checker must end"
    deadline = time.monotonic() + 30
    while _spare_workers() > len(kept) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _spare_workers() <= len(kept), "the workers that evicted checkers had prestarted must end with them"


def test_a_checker_idle_too_long_is_closed_at_the_next_acquire(task, monkeypatch):
    assert evaluate(task, task.expert_path, FAST).correct
    old = _pool_processes()
    assert old
    monkeypatch.setattr(checker_pool, "IDLE_S", 0.0)
    monkeypatch.setenv("WORKBENCH_POOL_TEST", "fresh")
    assert evaluate(task, task.expert_path, FAST).correct
    assert not _wait_gone(old), "the stale checker should have been closed"


def test_evals_of_successive_tests_share_a_checker(task, monkeypatch):
    """pytest names the test in flight in the environment; evals of one test run still share warm checkers."""
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/a.py::test_one (call)")
    assert evaluate(task, task.expert_path, FAST).correct
    warm = _pool_processes()
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/a.py::test_two (call)")
    assert evaluate(task, task.expert_path, FAST).correct
    assert _pool_processes() == warm, "the second test's eval should reuse the first one's checker"


def test_a_checker_left_in_the_middle_of_an_eval_is_killed_not_given_back():
    """A caller interrupted while it reads a checker's events (a test's timeout, ctrl-c) leaves the checker inside that
    eval: given back, the next eval would write its spec to it and read this one's events as its own."""
    with pytest.raises(RuntimeError), checker_pool.acquire("interpret", dict(os.environ)) as checker:
        raise RuntimeError("the caller was interrupted mid-eval")
    assert not checker.alive()
    with checker_pool._POOL_LOCK:
        assert all(idle is not checker for _, _, idle in checker_pool._IDLE)
