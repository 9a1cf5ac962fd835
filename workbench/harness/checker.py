"""The trusted checker: `python -m workbench.harness.checker RESULT_FD`, one eval spec per line on stdin.

It owns everything a verdict depends on: the task's inputs and reference (loaded from the project's task folder),
the seeds, the comparison, the reference's timing, the checks of the solution's timing, the ceilings and the GPU
lock. The solution runs in a worker it starts (confined) and talks to over a socket; results go to the parent over
RESULT_FD, a pipe only this process holds. Between evals it stays alive (torch imported, the task's code loaded),
so that a session's next eval starts warm.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import time
import traceback
import types
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

import torch

from workbench.harness.group_run import GroupRun
from workbench.harness.lock import GpuUse, lock_path
from workbench.harness.result import WorkloadResult
from workbench.harness.spec import GPU_HELD, GPU_WAIT, EvalSpec, WorkloadSpec, specs_from_line
from workbench.harness.worker_handle import Worker, WorkerGone, WorkerPlan
from workbench.harness.workload_check import Rejected, TaskCode, WorkloadCheck, error_of
from workbench.harness.zygotes import Zygotes


class Emitter:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, kind: str, **fields: Any) -> None:
        self.stream.write(json.dumps({"event": kind, **fields}, default=str) + "\n")
        self.stream.flush()


def load_module(name: str, path: Path) -> types.ModuleType:
    """A task file (or a solution, for trusted tools such as the benchmarks) as a module of its own."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TASK_CODE: dict[str, TaskCode] = {}


def task_code(task_dir: str) -> TaskCode:
    """The task's inputs.py and reference.py, loaded once per checker."""
    if task_dir not in _TASK_CODE:
        folder = Path(task_dir)
        inputs = load_module(f"_checker_inputs_{len(_TASK_CODE)}", folder / "inputs.py")
        reference = load_module(f"_checker_reference_{len(_TASK_CODE)}", folder / "reference.py")
        _TASK_CODE[task_dir] = TaskCode(inputs.make_inputs, reference.reference)
    return _TASK_CODE[task_dir]


class EvalRun:
    """One eval: workloads in order, a fresh worker after one that died or timed out."""

    def __init__(self, spec: EvalSpec, emit: Emitter, spare: Worker | None, zygotes: Zygotes | None = None) -> None:
        self.spec, self.emit = spec, emit
        self.gpu: GpuUse | None = None
        cache = Path(spec.triton_cache) if spec.mode == "cuda" else None  # the interpreter compiles nothing
        self.plan = WorkerPlan(spec.mode, cache, spec.confine)
        self.zygotes = zygotes if zygotes is not None and zygotes.serves(self.plan) else None
        self.spare = spare if spare is not None and spare.plan == self.plan and spare.proc.poll() is None else None
        if spare is not None and self.spare is None:
            spare.close()
        self.worker: Worker | None = None
        self.deadline = 0.0
        self.load_failure: tuple[str, str] | None = None  # the solution's import was refused: every workload fails

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def run(self) -> None:
        code = task_code(self.spec.task_dir)
        if self.spec.mode == "cuda":
            self.gpu = GpuUse(lock_path(), lambda waiting: self.emit(GPU_WAIT if waiting else GPU_HELD))
            self.gpu.share()
        try:
            for w in self.spec.workloads:
                if self.worker is None and not self._start_worker():
                    return
                result, check = self.begin_workload(w, code)
                if check is None:
                    continue
                try:
                    check.run(w, result, self._exclusive if self.gpu else None)
                except WorkerGone as gone:
                    self.worker_lost(result, gone)
                if check.ceilings:
                    self.emit("ceilings", ceilings=check.ceilings)
                del check
                self._release_memory()
                self.emit("result", result=asdict(result))
        finally:
            if self.worker is not None:
                self.worker.close()
            if self.gpu is not None:
                self.gpu.handle.close()

    def begin_workload(self, w: WorkloadSpec, code: TaskCode) -> tuple[WorkloadResult, WorkloadCheck | None]:
        """A workload's start said, its result begun and its check made (None, the result said already, when the
        solution's import was refused: every workload fails for it); the workload's time starts now."""
        assert self.worker is not None
        self.emit("start", workload=w.name)
        result = WorkloadResult(name=w.name, hidden=w.hidden)
        if self.load_failure is not None:
            result.failure, result.error = self.load_failure
            self.emit("result", result=asdict(result))
            return result, None
        self.deadline = time.monotonic() + self.spec.timeout_s
        return result, WorkloadCheck(self.spec, code, self.worker, self.remaining, self.phase)

    def worker_lost(self, result: WorkloadResult, gone: WorkerGone) -> None:
        """The worker died or timed out on this workload: its error, and a fresh worker for the next one."""
        reason = f"timed out after {self.spec.timeout_s:g} s (killed){gone.where()}" if gone.timed_out else gone.reason
        result.correct, result.failure, result.error = False, "error", reason
        if self.worker is not None:
            self.worker.close()
        self.worker = None

    def _release_memory(self) -> None:
        """Give a finished workload's memory back to the GPU, here and in the worker: several evals share one GPU
        (a bench, a suite run), and each process's allocator would otherwise keep its largest workload's peak."""
        if self.spec.mode != "cuda":
            return
        if self.worker is not None:
            try:
                self.worker.request({"op": "release"}, max(self.remaining(), 10.0), None)
            except WorkerGone:
                self.worker.close()
                self.worker = None
        torch.cuda.empty_cache()

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """Alone on the GPU while timing; the wait for other evals does not count against the workload's time."""
        assert self.gpu is not None
        waited = time.monotonic()
        with self.gpu.exclusive():
            self.deadline += time.monotonic() - waited
            yield

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.emit("phase", name=name, seconds=time.perf_counter() - started)

    def _start_worker(self) -> bool:
        spec = self.spec
        config = {"forbidden_calls": list(spec.forbidden_calls),
                  "allowed_torch_ops": list(spec.allowed_torch_ops), "audit": audit_config(spec)}  # fmt: skip
        try:
            with self.phase("worker start"):
                if self.zygotes is not None:
                    self.worker = self.zygotes.worker(self.plan, spec.startup_timeout_s)
                else:
                    self.worker, self.spare = self.spare or Worker(self.plan), None
                self.worker.wait_ready(spec.startup_timeout_s)
            with self.phase("load"):
                hello = self.worker.begin(Path(spec.solution), Path(spec.task_dir) / "inputs.py", config,
                                          spec.startup_timeout_s)  # fmt: skip
            if not hello.get("ok"):
                raise Rejected("error", str(hello.get("error"))[:3000])
            self.emit("device", device={**_device_fields(hello.get("device")), "driver": _driver_version(spec.mode)})
            self.emit("patches", patches=hello.get("patches", []))
            with self.phase("load"):
                loaded, _ = self.worker.request({"op": "load"}, spec.startup_timeout_s)
            if not loaded.get("ok"):
                kind, message = error_of(loaded)
                if kind in ("forbidden-op", "refused"):  # a verdict on the solution, for every workload
                    self.load_failure = (kind, message)
                    return True
                raise Rejected("error", message)
        except WorkerGone as gone:
            reason = gone.reason
            if gone.timed_out:
                limit = spec.startup_timeout_s
                reason = f"timed out after {limit:g} s while loading the solution (killed){gone.where()}"
            self.emit("fatal", error=f"could not load the solution: {reason}")
            return False
        except Rejected as exc:
            message = exc.message if exc.message.startswith("could not load") else f"could not load: {exc.message}"
            self.emit("fatal", error=message)
            return False
        return True


def audit_config(spec: EvalSpec) -> dict[str, Any]:
    """What the worker's audit hook lets the solution import (the policy is the worker's own; see audit.py)."""
    return {"forbidden_modules": ["workbench", "reference", "_checker_reference", "_checker_inputs"]}


def _device_fields(device: Any) -> dict[str, Any]:
    keys = ("name", "capability", "torch", "triton", "mode")
    return {k: device.get(k) if isinstance(device, dict) else None for k in keys}


def _driver_version(mode: str) -> str | None:
    if mode != "cuda":
        return None
    import subprocess

    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def main(argv: list[str]) -> int:
    out = os.fdopen(int(argv[0]), "w")
    emit = Emitter(out)
    torch.set_grad_enabled(False)
    spare: Worker | None = None
    zygotes = Zygotes()
    for line in sys.stdin:
        if not line.strip():
            continue
        specs = specs_from_line(line)
        run: EvalRun | GroupRun = (
            EvalRun(specs[0], emit, spare, zygotes)
            if len(specs) == 1
            else GroupRun(specs, emit, spare, zygotes, EvalRun, task_code)
        )
        try:
            run.run()
        except Exception as exc:  # the checker's own failure: say so, with where, never a silent hang
            where = " <- ".join(
                f"{Path(f.filename).name}:{f.lineno}" for f in traceback.extract_tb(exc.__traceback__)[-4:]
            )
            emit("fatal", error=f"the checker failed: {type(exc).__name__}: {exc} (at {where})")
        emit("done")
        if zygotes.serves(run.plan):
            zygotes.start_ahead(run.plan)
        else:
            spare = _start_spare(run.plan)
    if spare is not None:
        spare.close()
    zygotes.close()
    return 0


def _start_spare(plan: WorkerPlan) -> Worker | None:
    """A worker for the next eval, started now (importing torch and Triton and warming Triton up takes seconds) and
    waited for in the background, so that the next eval finds it ready when it comes later and waits only the rest
    when it comes at once. On CUDA its start-up runs under the GPU lock held shared, like any eval's, so that it never
    disturbs another eval's timing."""
    try:
        worker = Worker(plan)
    except OSError:
        return None
    if plan.mode == "cuda":
        gpu = GpuUse(lock_path())
        gpu.share()
        worker.start_in_background(180, gpu.handle.close)
    else:
        worker.start_in_background(180, lambda: None)
    return worker


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
