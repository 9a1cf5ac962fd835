"""The checker's handle on a worker: closing one that is still starting (a spare prestarted for an eval of another
task or folder) ends it at once instead of waiting for a reply it cannot give yet."""

import io
import time
import types
from pathlib import Path

from workbench.harness import EvalOptions, sandbox
from workbench.harness.checker import Emitter, EvalRun
from workbench.harness.runner import build_spec
from workbench.harness.spec import EvalSpec
from workbench.harness.worker_handle import Worker, WorkerPlan
from workbench.tasks import load_task


def _plan(tmp_path) -> WorkerPlan:
    return WorkerPlan("interpret", tmp_path, confine=False)


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


def _spec(task_name: str, solution: Path, tmp_path: Path, mode: str = "interpret") -> EvalSpec:
    task = load_task(task_name)
    options = EvalOptions(mode=mode, seeds=1)
    workloads = [w for w in task.workloads if w.interpret]
    folder = tmp_path / task_name
    folder.mkdir()
    return build_spec(task, solution, mode, workloads, options, 1, folder, solution)


def test_a_spare_started_after_one_task_serves_an_eval_of_another_task_and_folder(tmp_path):
    """A spare is prestarted after every eval; one tied to its eval's task or solution folder was thrown away
    whenever the next eval was of another (every test of the interpret suite), so each eval paid two worker starts."""
    spare = Worker(WorkerPlan("interpret", None, sandbox.confinement().works))
    try:
        histogram, swiglu = load_task("histogram"), load_task("swiglu")
        first = EvalRun(_spec("histogram", histogram.expert_path, tmp_path), Emitter(io.StringIO()), spare)
        assert first.spare is spare
        second = EvalRun(_spec("swiglu", swiglu.expert_path, tmp_path), Emitter(io.StringIO()), spare)
        assert second.spare is spare and spare.proc.poll() is None
    finally:
        spare.close()


class _StandInSpare:
    """A started worker as EvalRun sees one: its plan, a live process, close()."""

    def __init__(self, plan: WorkerPlan) -> None:
        self.plan, self.closed = plan, False
        self.proc = types.SimpleNamespace(poll=lambda: None)

    def close(self) -> None:
        self.closed = True


def test_on_cuda_a_spare_keeps_to_the_triton_cache_of_its_folder(tmp_path):
    """Compiled kernels are cached per workspace or folder (one solution must never load another's): a CUDA
    spare started for another folder's cache is closed, not handed the eval; one for the same cache is kept."""
    spec = _spec("histogram", load_task("histogram").expert_path, tmp_path, mode="cuda")
    other = _StandInSpare(WorkerPlan("cuda", tmp_path / "another-folder-cache", spec.confine))
    run = EvalRun(spec, Emitter(io.StringIO()), other)  # type: ignore[arg-type]
    assert run.spare is None and other.closed
    same = _StandInSpare(WorkerPlan("cuda", Path(spec.triton_cache), spec.confine))
    run = EvalRun(spec, Emitter(io.StringIO()), same)  # type: ignore[arg-type]
    assert run.spare is same and not same.closed
