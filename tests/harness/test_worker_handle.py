"""The checker's handle on a worker: closing one that is still starting (a spare prestarted for an eval of another
task or folder) ends it at once instead of waiting for a reply it cannot give yet."""

import time

from conftest import FIXTURE_ROOT

from workbench.harness.worker_handle import Worker, WorkerPlan


def _plan(tmp_path) -> WorkerPlan:
    return WorkerPlan("interpret", FIXTURE_ROOT / "tasks" / "scale_add" / "inputs.py", tmp_path, confine=False)


def test_a_worker_still_starting_is_closed_at_once(tmp_path):
    worker = Worker(_plan(tmp_path))
    assert not worker.ready and worker.proc.poll() is None  # importing torch takes seconds: it has not answered yet
    started = time.monotonic()
    worker.close()
    took = time.monotonic() - started
    assert worker.proc.poll() is not None
    assert not worker.home.exists()
    assert took < 1.0, f"closing a starting worker took {took:.2f} s: it cannot read the quit request yet"


def test_a_ready_worker_closed_before_its_eval_quits_cleanly(tmp_path):
    """A spare that was ready but never given an eval reads the quit request as its first message: it exits with
    status 0 (it raised KeyError 'inputs' and wrote a traceback to its log)."""
    worker = Worker(_plan(tmp_path))
    worker.wait_ready(120)
    worker.close()
    assert worker.proc.returncode == 0
