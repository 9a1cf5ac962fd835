"""Several solutions of one task in one eval, timed together (checker side): a ladder's rungs and its expert, or an
expert beside a production peer, so that a step between two of them is measured under the same conditions, as a
solution and the reference are.

Each solution keeps everything a single eval gives it (its private copy, its folders, its own confined worker, its
correctness over the same seeds); only the timing is shared: per workload, the reference and every solution that
passed take alternating batches over the same fresh input sets (workload_check.time_together). The events of
solution i carry `solution: i`, so the parent files each under its own result.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from workbench.harness.lock import GpuUse, lock_path
from workbench.harness.result import WorkloadResult
from workbench.harness.spec import GPU_HELD, GPU_WAIT, EvalSpec
from workbench.harness.worker_handle import Worker, WorkerGone
from workbench.harness.workload_check import Rejected, WorkloadCheck, reject, time_together
from workbench.harness.zygotes import Zygotes

if TYPE_CHECKING:  # the checker imports this module to run a group; its single-eval run is handed in
    from workbench.harness.checker import EvalRun


class Tagged:
    """An emitter that names the solution its events are about."""

    def __init__(self, emit: Any, index: int) -> None:
        self.emit, self.index = emit, index

    def __call__(self, kind: str, **fields: Any) -> None:
        self.emit(kind, solution=self.index, **fields)


class GroupRun:
    def __init__(self, specs: list[EvalSpec], emit: Any, spare: Worker | None, zygotes: Zygotes | None,
                 make_run: Callable[..., EvalRun], task_code: Callable[[str], Any]) -> None:  # fmt: skip
        self.specs, self.emit, self.task_code = specs, emit, task_code
        # No zygote: it serves one worker at a time, and a group keeps one worker per solution alive together (a
        # group is for CUDA timing anyway; the parent evaluates each solution apart in interpret mode).
        del zygotes
        self.runs = [make_run(spec, Tagged(emit, i), spare if i == 0 else None, None)
                     for i, spec in enumerate(specs)]  # fmt: skip
        self.plan = self.runs[0].plan
        self.gpu: GpuUse | None = None

    def run(self) -> None:
        lead = self.specs[0]
        code = self.task_code(lead.task_dir)
        if lead.mode == "cuda":
            self.gpu = GpuUse(lock_path(), lambda waiting: self.emit(GPU_WAIT if waiting else GPU_HELD))
            self.gpu.share()
        loaded = [True] * len(self.runs)
        try:
            for w in lead.workloads:
                timed: list[tuple[EvalRun, WorkloadCheck, WorkloadResult]] = []
                for i, run in enumerate(self.runs):
                    if not loaded[i]:
                        continue
                    if run.worker is None and not run._start_worker():
                        loaded[i] = False  # its fatal event is said; the others go on
                        continue
                    checked = self._correctness(run, code, w)
                    if checked is not None:
                        timed.append(checked)
                if timed:
                    self._time(timed, w)
        finally:
            for run in self.runs:
                if run.worker is not None:
                    run.worker.close()
            if self.gpu is not None:
                self.gpu.handle.close()

    def _correctness(self, run: EvalRun, code: Any, w: Any) -> tuple[EvalRun, WorkloadCheck, WorkloadResult] | None:
        """The workload's correctness for one solution; returns it for timing, or says its result now."""
        result, check = run.begin_workload(w, code)
        if check is None:
            return None
        try:
            check.run(w, result, None)  # correctness, and the notes of a workload that is not timed
        except WorkerGone as gone:
            run.worker_lost(result, gone)
        if result.correct and run.spec.mode == "cuda" and w.timed and not w.hidden:
            return run, check, result
        self._done(run, result)
        return None

    def _time(self, timed: list[tuple[EvalRun, WorkloadCheck, WorkloadResult]], w: Any) -> None:
        runs = [run for run, _, _ in timed]
        checks = [check for _, check, _ in timed]
        results = [result for _, _, result in timed]
        for run in runs:  # the timing of them all gets a workload's time of its own: the correctness of the
            run.deadline = time.monotonic() + run.spec.timeout_s  # solutions after a run's own is not its to pay
        try:
            with self._exclusive(runs), runs[0].phase("timing"):
                time_together(checks, w, results)
        except Rejected as exc:  # a single solution left to time: its rejection is raised
            reject(results[0], exc)
        except WorkerGone as gone:
            runs[0].worker_lost(results[0], gone)
        for run, check, result in timed:
            if check.ceilings:
                run.emit("ceilings", ceilings=check.ceilings)
            self._done(run, result)

    def _done(self, run: EvalRun, result: WorkloadResult) -> None:
        if run.worker is not None and run.worker.proc.poll() is not None:
            run.worker.close()  # died while timed beside the others: a fresh one for the next workload
            run.worker = None
        run._release_memory()
        run.emit("result", result=asdict(result))

    @contextlib.contextmanager
    def _exclusive(self, runs: list[EvalRun]) -> Iterator[None]:
        """Alone on the GPU while timing; the wait for other evals counts against no solution's time."""
        if self.gpu is None:
            yield
            return
        waited = time.monotonic()
        with self.gpu.exclusive():
            for run in runs:
                run.deadline += time.monotonic() - waited
            yield
