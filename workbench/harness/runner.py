"""The parent side of an eval: static checks here, everything else in a child process.

The child appends events to a file as it goes; this side watches that file, enforces a timeout per
workload, and turns a crash, a hang or a lost CUDA context into a result for the workload in
flight before starting a fresh child for the workloads left. The parent never imports the
solution and never touches the GPU, so nothing a solution does can take it down.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.harness.lock import LOCK_FD_ENV, Cancelled, GpuUse, lock_path
from workbench.harness.result import DeviceInfo, EvalResult, WorkloadResult, workload_from_dict
from workbench.harness.sandbox import bubblewrap_works, confined
from workbench.harness.spec import GPU_HELD, GPU_WAIT, EvalSpec, WorkloadSpec
from workbench.harness.static_checks import check_source
from workbench.tasks import Task, Workload

SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")


class EvalUsageError(ValueError):
    """Bad input to an eval (missing solution, unknown workload, no workload for the mode)."""


@dataclass
class EvalOptions:
    mode: str | None = None  # "cuda" or "interpret"; None: cuda when a GPU is visible
    workloads: list[str] | None = None
    seeds: int = 3
    timeout_s: float = 300.0  # per workload, compile included
    startup_timeout_s: float = 180.0  # importing torch, triton and the solution
    timing: dict[str, Any] = field(default_factory=dict)
    cancel: threading.Event | None = None  # set it to stop the eval; the workload in flight is killed
    sandbox_dir: Path | None = None  # agent code: confine the child, only this folder (and /tmp) writable


def detect_mode() -> str:
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "interpret"
    import torch

    return "cuda" if torch.cuda.is_available() else "interpret"


def select_workloads(task: Task, mode: str, names: list[str] | None) -> list[Workload]:
    if names:
        chosen = [task.workload(n) for n in names]
        slow = [w.name for w in chosen if mode == "interpret" and not w.interpret]
        if slow:
            raise EvalUsageError(f"workload {slow[0]!r} of {task.name} is too large for the interpreter")
        return chosen
    if mode == "interpret":
        chosen = [w for w in task.workloads if w.interpret]
        if not chosen:
            raise EvalUsageError(f"task {task.name} has no workload marked interpret = true")
        return chosen
    return list(task.workloads)


def evaluate(task: Task, solution: Path, options: EvalOptions | None = None) -> EvalResult:
    """Evaluate a solution file on a task: static checks, correctness, and timing on CUDA."""
    options = options or EvalOptions()
    if not solution.is_file():
        raise EvalUsageError(f"no solution file {solution}")
    source = solution.read_text()
    mode = options.mode or detect_mode()
    workloads = select_workloads(task, mode, options.workloads)
    static = check_source(source, task.forbidden_calls)
    result = EvalResult(
        task=task.name,
        solution=str(solution),
        solution_sha256=hashlib.sha256(source.encode()).hexdigest(),
        device=None,
        static=static,
    )
    if not static.ok:
        first = static.violations[0]
        result.error = f"static checks failed: {first.rule} at line {first.line}: {first.message}"
        return result.finish()
    run_spec(build_spec(task, solution, mode, workloads, options), result, options)
    return result.finish()


def build_spec(task: Task, solution: Path, mode: str, workloads: list[Workload], options: EvalOptions) -> EvalSpec:
    """What the child needs to run these workloads: paths, tolerances, SOL counts, options."""
    specs = []
    for w in workloads:
        sol_bytes, sol_flops = task.sol_counts(w)
        timed = mode == "cuda" and not w.interpret
        specs.append(WorkloadSpec(w.name, w.seed, w.params, sol_bytes, sol_flops, timed))
    return EvalSpec(
        task_dir=str(task.path.resolve()),
        solution=str(solution.resolve()),
        mode=mode,
        outputs=task.outputs,
        tolerance={k: (t.atol, t.rtol) for k, t in task.tolerance.items()},
        forbidden_calls=task.forbidden_calls,
        allowed_torch_ops=task.allowed_torch_ops,
        workloads=specs,
        seeds=options.seeds,
        timing=options.timing,
    )


def ceilings_cache_dir() -> Path:
    """Where the device ceilings are cached (see harness.ceilings); computed without importing torch."""
    base = os.environ.get("WORKBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "workbench"
    )
    return Path(base)


def child_environment(mode: str) -> dict[str, str]:
    """The child's environment: no API keys or other secrets; the interpreter switched on or off."""
    env = {k: v for k, v in os.environ.items() if not any(m in k.upper() for m in SECRET_MARKERS)}
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    if mode == "interpret":
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
    return env


def run_spec(spec: EvalSpec, result: EvalResult, options: EvalOptions) -> None:
    """Run the spec's workloads in child processes, a fresh child after each one that dies."""
    pending = list(spec.workloads)
    for _attempt in range(len(spec.workloads) + 1):
        if not pending or options.cancel is not None and options.cancel.is_set():
            return
        spec.workloads = pending
        outcome = _run_child(spec, options)
        if outcome.device and result.device is None:
            result.device = DeviceInfo(**outcome.device)
        if outcome.ceilings:
            result.ceilings = outcome.ceilings
        result.workloads.extend(outcome.results)
        done = {r.name for r in outcome.results}
        if outcome.fatal:
            result.error = outcome.fatal
            return
        if outcome.in_flight:
            result.workloads.append(WorkloadResult(name=outcome.in_flight, failure="error", error=outcome.exit_error))
            done.add(outcome.in_flight)
        elif outcome.exit_error and not done:
            result.error = outcome.exit_error
            return
        pending = [w for w in pending if w.name not in done]


@dataclass
class _ChildOutcome:
    results: list[WorkloadResult] = field(default_factory=list)
    device: dict[str, Any] | None = None
    ceilings: dict[str, Any] | None = None
    fatal: str | None = None
    in_flight: str | None = None  # a workload that started and never reported
    exit_error: str | None = None


def _run_child(spec: EvalSpec, options: EvalOptions) -> _ChildOutcome:
    outcome = _ChildOutcome()
    timeout_s, startup_timeout_s = options.timeout_s, options.startup_timeout_s
    with tempfile.TemporaryDirectory(prefix="workbench-eval-") as tmp:
        spec_path, events_path, log_path = Path(tmp, "spec.json"), Path(tmp, "events.jsonl"), Path(tmp, "child.log")
        spec.save(spec_path)
        events_path.touch()
        command = [sys.executable, "-m", "workbench.harness.worker", str(spec_path), str(events_path)]
        env = child_environment(spec.mode)
        if options.sandbox_dir is not None and bubblewrap_works():
            cache = ceilings_cache_dir()
            cache.mkdir(parents=True, exist_ok=True)
            env["TRITON_CACHE_DIR"] = str(Path(options.sandbox_dir).resolve() / ".triton")
            command = confined(command, [Path(options.sandbox_dir).resolve(), cache], Path(tmp))
        try:
            with open(log_path, "w") as log, _gpu_hold(spec.mode, env, options.cancel) as lock_fds:
                proc = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=tmp,
                    env=env, start_new_session=True, pass_fds=lock_fds,
                )  # fmt: skip
        except Cancelled:  # while it waited for another eval's timing: no child was started
            outcome.exit_error = "interrupted: the eval was cancelled"
            return outcome
        timed_out = _watch(proc, events_path, timeout_s, startup_timeout_s, options.cancel)
        _read_events(events_path, outcome)
        if outcome.fatal or proc.returncode == 0 and not outcome.in_flight:
            return outcome
        tail = _tail(log_path)
        if options.cancel is not None and options.cancel.is_set():
            outcome.exit_error = "interrupted: the eval was cancelled"
        elif timed_out and outcome.in_flight:
            outcome.exit_error = f"timed out after {timeout_s:g} s (killed)"
        elif timed_out:
            outcome.exit_error = f"timed out after {startup_timeout_s:g} s while loading the solution (killed)"
        else:
            outcome.exit_error = describe_exit(proc.returncode, tail)
        return outcome


@contextlib.contextmanager
def _gpu_hold(mode: str, env: dict[str, str], cancel: threading.Event | None = None) -> Iterator[tuple[int, ...]]:
    """On CUDA, the GPU lock taken shared for the child to inherit (lock.py says why the parent takes it):
    yields the file descriptors to pass down, and closes the parent's copy once the child has its own.
    Raises Cancelled when `cancel` is set while it waits."""
    if mode != "cuda":
        yield ()
        return
    use = GpuUse(lock_path())
    try:
        use.share(cancel)  # waits here, before the child exists, while another eval times
        env[LOCK_FD_ENV] = str(use.handle.fileno())
        yield (use.handle.fileno(),)
    finally:
        use.handle.close()  # the child's descriptor keeps the hold; one that never started releases it here


def _watch(
    proc: subprocess.Popen[bytes],
    events_path: Path,
    timeout_s: float,
    startup_timeout_s: float,
    cancel: threading.Event | None = None,
) -> bool:
    """Wait for the child, killing its process group when one workload runs past the timeout (or
    the start-up before the first workload past its own). Returns whether it was killed for that.
    Time the child spends waiting for the GPU's lock (another eval is timing) does not count: the
    phase's clock starts again when it has the lock."""
    phase_started, limit, seen, waiting = time.monotonic(), startup_timeout_s, 0, False
    while proc.poll() is None:
        lines = events_path.read_text().splitlines()
        if len(lines) != seen:
            seen = len(lines)
            last = _last_event(lines)
            waiting = last == GPU_WAIT
            if last in ("start", "result", GPU_HELD):
                phase_started = time.monotonic()
            if last in ("start", "result"):
                limit = timeout_s
        if waiting:
            phase_started = time.monotonic()
        if time.monotonic() - phase_started > limit or cancel is not None and cancel.is_set():
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.05)
    return False


def _last_event(lines: list[str]) -> str | None:
    try:
        return json.loads(lines[-1]).get("event") if lines else None
    except json.JSONDecodeError:  # caught mid-write; the next poll sees it whole
        return None


def _read_events(path: Path, outcome: _ChildOutcome) -> None:
    for line in path.read_text().splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by a kill
            continue
        kind = event["event"]
        if kind == "device":
            outcome.device = event["device"]
        elif kind == "ceilings":
            outcome.ceilings = event["ceilings"]
        elif kind == "fatal":
            outcome.fatal = event["error"]
        elif kind == "start":
            outcome.in_flight = event["workload"]
        elif kind == "result":
            outcome.results.append(workload_from_dict(event["result"]))
            outcome.in_flight = None


def describe_exit(returncode: int | None, tail: str) -> str:
    if returncode is not None and returncode < 0:
        name = signal.Signals(-returncode).name
        what = {"SIGSEGV": "segmentation fault", "SIGABRT": "aborted", "SIGKILL": "killed (out of memory?)",
                "SIGBUS": "bus error", "SIGFPE": "arithmetic fault"}.get(name, "killed")  # fmt: skip
        message = f"the solution's process died: {name} ({what})"
    elif returncode == 3:
        message = "the CUDA context was lost after this workload's fault"
    else:
        message = f"the solution's process exited with status {returncode}"
    return message + (f"; last output: {tail}" if tail else "")


def _tail(path: Path, lines: int = 6) -> str:
    text = path.read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:])[-1500:]
