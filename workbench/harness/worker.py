"""The child process that runs a solution: `python -m workbench.harness.worker SPEC EVENTS`.

It loads the task's inputs and reference, imports the solution under the runtime guard, then for
each workload checks correctness over several seeds and (on CUDA) times reference and solution.
Every step is appended to the EVENTS file as a JSON line and flushed, so that when this process
dies (segfault, CUDA fault, timeout kill) the parent knows exactly how far it got.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
import types
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

import torch

from workbench.harness.compare import compare_outputs, inputs_unchanged
from workbench.harness.result import WorkloadResult
from workbench.harness.solution_side import triton_patches
from workbench.harness.solution_side.guard import ForbiddenCall, SolutionGuard, raising, resolve_callables
from workbench.harness.spec import GPU_HELD, GPU_WAIT, EvalSpec, WorkloadSpec
from workbench.harness.static_checks import DEFAULT_FORBIDDEN_CALLS
from workbench.harness.timing import TimingOptions, flush_buffer, nvtx_range, time_functions

EXIT_CONTEXT_LOST = 3
INPUT_SET_BYTES = 4 << 30  # rotate among as many input sets as fit in this much memory (2-4 sets)


def timing_seed(seed: int, j: int) -> int:
    """The seed of a workload's j-th timing input set (j from 0): none of them is a correctness seed
    (seed + 1000 * s), so the timed calls are checked again on inputs the checks did not see."""
    return seed + 7919 * (j + 1)


class Events:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def emit(self, kind: str, **fields: Any) -> None:
        self.stream.write(json.dumps({"event": kind, **fields}, default=_json_default) + "\n")
        self.stream.flush()


def _json_default(value: Any) -> Any:
    return str(value)


def describe_exception(exc: BaseException, solution: Path) -> str:
    """The exception and where in the solution it came from; Triton compile errors keep their
    source excerpt. Capped, so a huge message cannot flood a transcript."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).name == solution.name]
    where = f" (at {solution.name}:{frames[-1].lineno})" if frames else ""
    text = f"{type(exc).__name__}: {exc}".strip()
    return (text[:3000] + (" ..." if len(text) > 3000 else "")) + where


def _load_module(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Runner:
    def __init__(self, spec: EvalSpec, events: Events) -> None:
        self.spec = spec
        self.events = events
        self.device = torch.device("cuda" if spec.mode == "cuda" else "cpu")
        self.gpu = None
        if spec.mode == "cuda":  # shared from the start; exclusive only while timing (lock.py says why)
            from workbench.harness.lock import GpuUse, lock_path

            on_wait = lambda waiting: events.emit(GPU_WAIT if waiting else GPU_HELD)  # noqa: E731
            self.gpu = GpuUse.inherited(lock_path(), on_wait)
            if self.gpu is None:  # run by hand, not by the harness
                self.gpu = GpuUse(lock_path(), on_wait)
                self.gpu.share()
        task = Path(spec.task_dir)
        self.inputs = _load_module("_workbench_task_inputs", task / "inputs.py")
        reference_module = _load_module("_workbench_task_reference", task / "reference.py")
        self.reference = reference_module.reference
        # Any import of `reference` by the solution gets a module whose function refuses to run.
        stub = types.ModuleType("reference")
        stub.reference = raising("the task's reference")  # type: ignore[attr-defined]
        sys.modules["reference"] = stub
        self.forbidden = resolve_callables(DEFAULT_FORBIDDEN_CALLS + tuple(spec.forbidden_calls))
        self.forbidden[self.reference] = "the task's reference"
        self.patches = triton_patches.apply(interpret=spec.mode == "interpret")
        solution_path = Path(spec.solution)
        sys.path.insert(0, str(solution_path.parent))
        guard = SolutionGuard(self.forbidden, spec.allowed_torch_ops, poison=False)
        with guard:
            self.solution = _load_module("solution", solution_path).solution

    def guarded_call(self, inputs: tuple[Any, ...]) -> Any:
        guard = SolutionGuard(self.forbidden, self.spec.allowed_torch_ops, poison=True)
        try:
            with guard:
                out = self.solution(*inputs)
                if self.device.type == "cuda":
                    torch.cuda.synchronize()
        except ForbiddenCall:
            raise
        except Exception:
            if guard.violations:
                raise ForbiddenCall(guard.violations[0]) from None
            raise
        return out

    def run_workload(self, w: WorkloadSpec) -> WorkloadResult:
        result = WorkloadResult(name=w.name)
        with nvtx_range(f"{w.name}/correctness"):
            if not self._check_correctness(w, result):
                return result
        result.correct = True
        if self.spec.mode != "cuda":
            result.timing_note = "not timed in interpret mode (CPU interpreter): correctness only"
            return result
        if not w.timed:
            result.timing_note = "CI-sized workload (interpret = true): correctness only, its time is launch overhead"
            return result
        self._time(w, result)
        return result

    def _check_correctness(self, w: WorkloadSpec, result: WorkloadResult) -> bool:
        for s in range(self.spec.seeds):
            seed = w.seed + 1000 * s
            inputs = tuple(self.inputs.make_inputs(dict(w.params), seed, self.device))
            expected = self.reference(*inputs)
            before = tuple(x.clone() if isinstance(x, torch.Tensor) else x for x in inputs)
            try:
                got = self.guarded_call(inputs)
            except ForbiddenCall as exc:
                result.failure, result.error = "forbidden-op", str(exc)
                return False
            result.seeds_checked = s + 1
            changed = inputs_unchanged(before, inputs)
            if changed:
                result.failure, result.error = "input-modified", f"seed {seed}: {changed}"
                return False
            cmp = compare_outputs(got, expected, self.spec.outputs, self.spec.tolerance)
            result.max_abs_err = max(result.max_abs_err or 0.0, cmp.max_abs_err)
            result.max_rel_err = max(result.max_rel_err or 0.0, cmp.max_rel_err)
            if not cmp.ok:
                result.failure, result.mismatches, result.first_mismatches = cmp.failure, cmp.mismatches, cmp.first
                result.error = f"seed {seed}: {cmp.message}"
                return False
        return True

    def _time(self, w: WorkloadSpec, result: WorkloadResult) -> None:
        from workbench.harness.ceilings import device_ceilings, sol_ms

        probe = self.inputs.make_inputs(dict(w.params), w.seed, self.device)
        set_bytes = sum(x.numel() * x.element_size() for x in probe if isinstance(x, torch.Tensor))
        n_sets = max(2, min(4, INPUT_SET_BYTES // max(set_bytes, 1)))
        del probe
        sets = [
            tuple(self.inputs.make_inputs(dict(w.params), timing_seed(w.seed, j), self.device)) for j in range(n_sets)
        ]
        expected = [self.reference(*s) for s in sets]
        options = TimingOptions(**self.spec.timing)
        assert self.gpu is not None
        with self.gpu.exclusive():
            ceilings = device_ceilings(self.device)
            flush = flush_buffer(self.device)
            named = {"reference": self.reference, "solution": self.solution}
            if not options.reference:
                del named["reference"]
            names = [f"{w.name}/{role}" for role in named]
            *refs, sol = time_functions(list(named.values()), sets, flush, options, names)
            ref = refs[0] if refs else None
        for j, (got, want) in enumerate(zip(sol.outputs, expected)):
            cmp = compare_outputs(got, want, self.spec.outputs, self.spec.tolerance)
            if not cmp.ok:
                result.correct, result.failure = False, cmp.failure
                result.error = f"output produced while timing (input set {j}) is wrong: {cmp.message}"
                return
        result.latency_ms = sol.latency
        if ref is not None:
            result.reference_ms = ref.latency
            result.speedup = ref.latency.median / sol.latency.median
        result.sol_ms = sol_ms(w.sol_bytes, w.sol_flops, ceilings)
        result.sol_fraction = result.sol_ms / sol.latency.median
        notes = [n for n in (f"{n_sets} input sets rotated", sol.note) if n]
        result.timing_note = "; ".join(notes)
        self.events.emit("ceilings", ceilings=ceilings)


def device_info(mode: str) -> dict[str, Any]:
    import triton

    info: dict[str, Any] = {"torch": torch.__version__, "triton": triton.__version__, "mode": mode}
    if mode == "cuda":
        props = torch.cuda.get_device_properties(0)
        info.update(name=props.name, capability=f"{props.major}.{props.minor}", driver=_driver_version())
    else:
        info.update(name="cpu (Triton interpreter)", capability=None, driver=None)
    return info


def _driver_version() -> str | None:
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
    spec = EvalSpec.load(Path(argv[0]))
    with open(argv[1], "a", encoding="utf-8") as stream:
        events = Events(stream)
        solution = Path(spec.solution)
        try:
            events.emit("device", device=device_info(spec.mode))
            runner = Runner(spec, events)
            events.emit("patches", patches=runner.patches)
        except BaseException as exc:  # the solution's import is untrusted code: report, never crash
            events.emit("fatal", error=f"could not load the solution: {describe_exception(exc, solution)}")
            return 0
        for w in spec.workloads:
            events.emit("start", workload=w.name)
            try:
                result = runner.run_workload(w)
            except Exception as exc:
                result = WorkloadResult(name=w.name, failure="error", error=describe_exception(exc, solution))
            events.emit("result", result=asdict(result))
            if spec.mode == "cuda" and not _context_alive():
                events.emit("context_lost", after=w.name)
                return EXIT_CONTEXT_LOST
    return 0


def _context_alive() -> bool:
    try:
        torch.cuda.synchronize()
        torch.empty(1, device="cuda").fill_(0).item()
        return True
    except Exception:
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
