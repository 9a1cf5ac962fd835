"""Checks, without a GPU, that every Triton kernel a solution launches compiles for the H200 (sm_90).

    python benchmarks/compile_check.py [--tasks T ...] [--ladders] [--experts] [SOLUTION ...]

The CPU interpreter runs a kernel as Python, so code that Triton's GPU compiler refuses can pass every interpret
workload (a plain module-level constant read in a kernel, `constexpr` misuse, a loop-carried value whose type the
compiler changes). For each solution this runs its interpret workloads (hidden ones too) under TRITON_INTERPRET=1,
records each launch of a `@triton.jit` function (argument dtypes and alignment, scalars, constexpr values,
num_warps / num_stages and the other options given), then imports the solution again as compiled code and builds
every distinct launch with Triton's own compiler for GPUTarget("cuda", 90, 32) down to a cubin (Triton's bundled
ptxas; no driver, no GPU). The arguments are specialised as a launch would specialise them (Triton's own binder).

It proves the kernels compile; not that they are correct, fast or free of races on a GPU. Every config of an
`@triton.autotune` is a launch (the GPU compiles each while it tunes; the interpreter runs the first, the harness's
rule, and the others are recorded), and kernels in modules beside the solution (which an eval copies along) are
compiled like its own.

--resources lists what each compiled launch takes of an SM (Triton's bundled cuobjdump on the cubin): registers a
thread, local memory a thread (spills and stack arrays), shared memory a program, its warps, and how many of its
programs fit on one H200 SM by each of those. --all-workloads records the launches of every workload (the timed,
GPU-sized ones too) without running the kernels: solution() runs on the CPU with the workload's real inputs and each
launch is recorded and skipped, so a solution whose host code reads what a kernel wrote may fail there (said so).

SOLUTION is a file under guidance/<task>/ or tasks/<task>/, or TASK=PATH for a file elsewhere. With no SOLUTION
and neither --ladders nor --experts, both are checked. Prints a table; exit status 1 when any launch fails to
compile or a solution's workloads fail to run, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from workbench.tasks import load_task, task_names  # noqa: E402

TARGET = ("cuda", 90, 32)  # the H200: compute capability 9.0, warp size 32
# an H200 SM (sm_90): 64K 32-bit registers, allocated 8 a thread at a time, per warp; 2048 threads; 32 programs;
# 228 KB of shared memory, 1 KB of it reserved per program (CUDA C programming guide, compute capability 9.0)
SM_REGISTERS, REGISTER_UNIT, SM_THREADS, SM_PROGRAMS = 65536, 8, 2048, 32
SM_SHARED, SHARED_RESERVED = 228 * 1024, 1024


@dataclass
class Outcome:
    """What one solution's check found."""

    task: str
    label: str
    recorded: int = 0
    compiled: int = 0
    failures: list[str] = field(default_factory=list)  # "kernel: message"
    error: str | None = None  # the workloads did not run, or the child died
    resources: list[dict[str, Any]] = field(default_factory=list)  # per compiled launch, with --resources

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failures and self.compiled == self.recorded


# ---- the child: record under the interpreter, then compile -------------------------------------------------------


def _encode(value: Any) -> Any:
    """An argument of a launch as JSON; what the compile step needs of it, never its data."""
    import torch
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor

    if isinstance(value, torch.Tensor):
        return {"tensor": str(value.dtype).removeprefix("torch."), "aligned": value.data_ptr() % 16 == 0}
    if isinstance(value, TensorDescriptor):  # a host-built TMA descriptor: its tensor, extents and tile
        fields = {"shape": list(value.shape), "strides": list(value.strides), "block_shape": list(value.block_shape)}
        return {"descriptor": _encode(value.base), "padding": value.padding, **fields}
    if isinstance(value, tl.constexpr):
        return _encode(value.value)
    if isinstance(value, tl.dtype):
        return {"tl_dtype": value.name}
    if isinstance(value, tuple | list):
        return {"tuple": [_encode(v) for v in value]}
    if value is None or isinstance(value, bool | int | float | str):
        return {"value": value}
    raise TypeError(f"cannot record an argument of type {type(value).__name__}")


class _Pointer:
    """Stands for a tensor argument: Triton's binder reads only its dtype and its address's alignment."""

    def __init__(self, dtype: Any, aligned: bool) -> None:
        self.dtype, self._ptr = dtype, 0 if aligned else 8

    def data_ptr(self) -> int:
        return self._ptr


def _decode(encoded: dict[str, Any]) -> Any:
    import torch
    import triton.language as tl

    if "tensor" in encoded:
        return _Pointer(getattr(torch, encoded["tensor"]), encoded["aligned"])
    if "descriptor" in encoded:
        from triton.tools.tensor_descriptor import TensorDescriptor

        base = _decode(encoded["descriptor"])
        return TensorDescriptor(base, encoded["shape"], encoded["strides"], encoded["block_shape"], encoded["padding"])
    if "tl_dtype" in encoded:
        return getattr(tl, encoded["tl_dtype"]) if hasattr(tl, encoded["tl_dtype"]) else tl.dtype(encoded["tl_dtype"])
    if "tuple" in encoded:
        return tuple(_decode(v) for v in encoded["tuple"])
    return encoded["value"]


def _load(path: Path, name: str) -> Any:
    import importlib.util

    if str(path.parent) not in sys.path:  # its sibling modules import as they do in an eval (copied beside it)
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def record_launches(task_name: str, path: Path, every_workload: bool = False) -> list[dict[str, Any]]:
    """Every distinct launch of the solution's interpret workloads (or, recorded and not run, of every workload),
    first seen first, each with the workload it was first seen in."""
    os.environ["TRITON_INTERPRET"] = "1"
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.interpreter import InterpretedFunction

    seen: dict[str, dict[str, Any]] = {}
    original, original_autotuned = InterpretedFunction.run, Autotuner.run
    workload = ""
    skipping = False

    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        launch = {"kernel": self.fn.__qualname__, "file": self.fn.__code__.co_filename,
                  "args": [_encode(a) for a in args], "kwargs": {k: _encode(v) for k, v in kwargs.items()}}  # fmt: skip
        seen.setdefault(json.dumps(launch, sort_keys=True), {**launch, "workload": workload})
        if every_workload or skipping:
            return None  # recorded, not run: a GPU-sized workload would take the interpreter hours
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)

    def autotuned(self: Any, *args: Any, **kwargs: Any) -> Any:
        """Every config of an @triton.autotune is a launch the GPU will compile while it tunes: each is recorded
        (not run), then the first runs as the harness runs it in interpret mode (tuning needs a driver)."""
        nonlocal skipping
        configs = self.configs
        for config in configs[1:]:
            skipping = True
            try:
                self.fn.run(*args, **kwargs, **config.all_kwargs())
            finally:
                skipping = False
        self.configs = configs[:1]
        try:
            return original_autotuned(self, *args, **kwargs)
        finally:
            self.configs = configs

    InterpretedFunction.run = run  # type: ignore[method-assign]
    Autotuner.run = autotuned  # type: ignore[method-assign]
    # the interpreter as the harness runs it (its fixes for kernels that are right on a GPU), so that whatever
    # passes `workbench eval` in interpret mode also runs here
    from workbench.harness.solution_side import interpreter_fixes

    interpreter_fixes.apply()
    try:
        module = _load(path, "interpreted_solution")
        task = load_task(task_name, REPO)
        task_dir = task.path
        inputs = _load(task_dir / "inputs.py", "task_inputs")
        for w in (*task.workloads, *task.hidden):
            if w.interpret or every_workload:
                workload = w.name
                try:
                    module.solution(*inputs.make_inputs(dict(w.params), w.seed, "cpu"))
                except Exception as exc:
                    if not every_workload:
                        raise
                    # its kernels did not run: host code that reads their output sees the empty tensors
                    raise RuntimeError(f"{w.name}: {type(exc).__name__}: {exc} (with its kernels skipped)") from None
    finally:
        InterpretedFunction.run = original  # type: ignore[method-assign]
        Autotuner.run = original_autotuned  # type: ignore[method-assign]
    return list(seen.values())


def _jit_functions(module: Any) -> dict[str, Any]:
    """The module's @triton.jit functions by qualified name, unwrapped from autotune and heuristics."""
    from triton.runtime.jit import JITFunction

    found = {}
    for value in vars(module).values():
        while not isinstance(value, JITFunction) and hasattr(value, "fn"):
            value = value.fn
        if isinstance(value, JITFunction):
            found[value.fn.__qualname__] = value
    return found


def _message(exc: BaseException, jit: Any) -> str:
    """The compiler's complaint in one line, with the kernel file's own line number where it gives one."""
    from triton.compiler.errors import CompilationError

    if isinstance(exc, CompilationError) and getattr(exc, "node", None) is not None:
        cause = exc.error_message or (str(exc.__cause__) if exc.__cause__ else type(exc).__name__)
        # the compiler counts lines from the kernel's `def`, which follows its decorators
        lines, first = inspect.getsourcelines(jit.fn)
        def_at = next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))
        code = lines[def_at + exc.node.lineno - 1].strip()
        return f"line {first + def_at + exc.node.lineno - 1} ({code}): {cause.strip().splitlines()[-1][:240]}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1][:240] if text else ''}"


def compile_launch(jit: Any, launch: dict[str, Any]) -> Any:
    """Build one recorded launch for sm_90 as JITFunction.run would, stopping before the driver; the compiled
    kernel."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.jit import create_function_from_signature

    target = GPUTarget(*TARGET)
    backend = make_backend(target)
    args = [_decode(a) for a in launch["args"]]
    kwargs = {k: _decode(v) for k, v in launch["kwargs"].items()}
    kwargs["debug"] = kwargs.get("debug", jit.debug) or False
    binder = create_function_from_signature(jit.signature, jit.params, backend)
    bound, specialization, options = binder(*args, **kwargs)
    options, signature, constexprs, attrs = jit._pack_args(backend, kwargs, bound, specialization, options)
    kernel = triton.compile(ASTSource(jit, signature, constexprs, attrs), target=target, options=options.__dict__)
    if not kernel.asm.get("cubin"):
        raise RuntimeError("the compiler returned no cubin")
    return kernel


def resources(kernel: Any) -> dict[str, int]:
    """What one program of the compiled kernel takes of an SM, read from its cubin by Triton's bundled cuobjdump
    (no driver): registers and local memory (bytes) a thread, shared memory (bytes) a program, its warps; and how
    many programs fit on one SM by registers, threads and shared memory, and by all of them."""
    import re
    import tempfile

    import triton.backends.nvidia as nvidia

    tool = Path(nvidia.__file__).parent / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(kernel.asm["cubin"])
        cubin.flush()
        usage = subprocess.run([str(tool), "--dump-resource-usage", cubin.name], capture_output=True, text=True,
                               check=True).stdout  # fmt: skip
    found = re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", usage)
    if found is None:
        raise RuntimeError(f"cuobjdump gave no resource usage: {usage.strip()[-200:]}")
    regs, stack, static_shared, local = (int(v) for v in found.groups())
    local += stack  # registers spilled go to the thread's stack frame
    warps = int(kernel.metadata.num_warps)
    shared = max(int(kernel.metadata.shared), static_shared)
    per_warp = -(-max(regs, 1) * 32 // (REGISTER_UNIT * 32)) * REGISTER_UNIT * 32  # whole units a warp
    by_regs = SM_REGISTERS // (per_warp * warps)
    by_threads = SM_THREADS // (32 * warps)
    by_shared = SM_SHARED // (shared + SHARED_RESERVED) if shared else 1 << 20  # none taken: no bound
    return {"regs": regs, "local": local, "shared": shared, "warps": warps, "by_regs": by_regs,
            "by_threads": by_threads, "by_shared": by_shared,
            "per_sm": min(by_regs, by_threads, by_shared, SM_PROGRAMS)}  # fmt: skip


def record_one(task_name: str, path: Path, every_workload: bool = False) -> dict[str, Any]:
    """The first child's work: the solution's launches, or why its workloads did not run."""
    try:
        return {"launches": record_launches(task_name, path, every_workload)}
    except Exception as exc:  # the solution is untrusted code: any failure is its record
        return {"error": f"interpret run failed: {type(exc).__name__}: {str(exc).strip()[:300]}"}


def compile_all(path: Path, launches: list[dict[str, Any]], measure: bool = False) -> dict[str, Any]:
    """The second child's work (a fresh process: the interpreter leaves Triton's language patched behind it)."""
    solution = _load(path, "compiled_solution")
    folder = path.resolve().parent
    kernels = {(str(path), name): jit for name, jit in _jit_functions(solution).items()}
    for module in list(sys.modules.values()):  # the sibling modules it imported, with their kernels
        file = getattr(module, "__file__", None)
        if module is not solution and file and Path(file).resolve().parent == folder:
            kernels.update({(str(Path(file).resolve()), name): jit for name, jit in _jit_functions(module).items()})
    compiled, failures = 0, dict[str, int]()  # a message -> how many launches it failed
    used: list[dict[str, Any]] = []
    for launch in launches:
        jit = kernels.get((str(Path(launch["file"]).resolve()), launch["kernel"]))
        if jit is None:
            where = Path(launch["file"]).name
            failure = f"{launch['kernel']}: not a module-level kernel of {where} in {path.parent.name}/; not compiled"
            failures[failure] = failures.get(failure, 0) + 1
            continue
        try:
            kernel = compile_launch(jit, launch)
            compiled += 1
        except Exception as exc:
            failure = f"{launch['kernel']}: {_message(exc, jit)}"
            failures[failure] = failures.get(failure, 0) + 1
            continue
        if measure:
            used.append({"kernel": launch["kernel"], "workload": launch.get("workload", ""),
                         "constexprs": _constexprs(jit, launch), **resources(kernel)})  # fmt: skip
    listed = [f"{text} [{n} launches]" if n > 1 else text for text, n in failures.items()]
    return {"recorded": len(launches), "compiled": compiled, "failures": listed, "resources": used}


def _constexprs(jit: Any, launch: dict[str, Any]) -> str:
    """The launch's constexpr values, as 'BLOCK_N=4096 ROWS=1', which tell its specialisations apart."""
    named = dict(zip([p.name for p in jit.params], launch["args"], strict=False)) | launch["kwargs"]
    shown = [f"{p.name}={named[p.name].get('value')}" for p in jit.params if p.is_constexpr and p.name in named]
    return " ".join(shown)


# ---- the parent: one child per solution, a table ------------------------------------------------------------------


def check(task_name: str, label: str, path: Path, timeout_s: float = 600.0, measure: bool = False,
          every_workload: bool = False) -> Outcome:  # fmt: skip
    """Runs one solution's check in its own process (the interpreter patches Triton's globals while it runs)."""
    outcome = Outcome(task_name, label)
    try:
        record = ["--record", task_name, str(path.resolve())] + (["--all-workloads"] if every_workload else [])
        recorded = _child(record, "", timeout_s)
        if "error" in recorded:
            outcome.error = recorded["error"]
            return outcome
        compile_ = ["--compile", str(path.resolve())] + (["--resources"] if measure else [])
        found = _child(compile_, json.dumps(recorded["launches"]), timeout_s)
    except RuntimeError as exc:
        outcome.error = str(exc)
        return outcome
    outcome.error = found.get("error")
    outcome.recorded, outcome.compiled = found.get("recorded", 0), found.get("compiled", 0)
    outcome.failures = found.get("failures", [])
    outcome.resources = found.get("resources", [])
    return outcome


def _child(args: list[str], stdin: str, timeout_s: float) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    try:
        done = subprocess.run([sys.executable, __file__, *args], input=stdin, capture_output=True, text=True,
                              timeout=timeout_s, env=env)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{args[0][2:]} step timed out after {timeout_s:.0f} s") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{args[0][2:]} step exited {done.returncode}: {tail}")
    found: dict[str, Any] = json.loads(lines[-1])
    return found


def table(outcomes: list[Outcome]) -> list[str]:
    lines = [f"{'task':26} {'solution':24} {'launches':>8} {'compiled':>8}  result"]
    for o in outcomes:
        result = "ok" if o.ok else f"FAILED: {o.error}" if o.error else f"FAILED: {o.recorded - o.compiled} launch(es)"
        lines.append(f"{o.task:26} {o.label:24} {o.recorded:8} {o.compiled:8}  {result}")
        lines += [f"    {failure}" for failure in o.failures]
        lines += [f"    {_used(r)}" for r in o.resources]
    recorded, compiled = sum(o.recorded for o in outcomes), sum(o.compiled for o in outcomes)
    bad = sum(not o.ok for o in outcomes)
    lines.append(
        f"{len(outcomes)} solutions, {recorded} launches recorded, {compiled} compiled for sm_90, "
        f"{bad} solutions failed"
    )
    return lines


def _used(r: dict[str, Any]) -> str:
    limits = {"registers": r["by_regs"], "threads": r["by_threads"], "shared memory": r["by_shared"],
              f"the {SM_PROGRAMS}-program limit": SM_PROGRAMS}  # fmt: skip
    bound = " and ".join(k for k, v in limits.items() if v == min(limits.values()))
    spill = f", {r['local']} B local a thread (spills, stack)" if r["local"] else ""
    return (f"{r['kernel']} [{r['workload']}] {r['constexprs']}: {r['warps']} warps, {r['regs']} registers{spill}, "
            f"{r['shared'] / 1024:.1f} KB shared -> {r['per_sm']} a SM (by {bound})")  # fmt: skip


def _task_of(spec: str, names: list[str]) -> tuple[str, Path]:
    """TASK=PATH, or a path whose folder under guidance/ or tasks/ names the task."""
    if "=" in spec:
        name, _, raw = spec.partition("=")
        path = Path(raw)
    else:
        path = Path(spec)
        parts = path.resolve().relative_to(REPO).parts if path.resolve().is_relative_to(REPO) else ()
        name = parts[1] if len(parts) > 2 and parts[0] in ("guidance", "tasks") else ""
    if name not in names:
        raise ValueError(f"cannot tell the task of {spec!r}: give it as TASK=PATH" if not name else f"no task {name!r}")
    if not path.is_file():
        raise ValueError(f"no file {str(path)!r}")
    return name, path


def plan(args: argparse.Namespace) -> list[tuple[str, str, Path]]:
    names = task_names(REPO)
    unknown = sorted(set(args.tasks or []) - set(names))
    if unknown:
        raise ValueError(f"no task {unknown[0]!r}")
    chosen = args.tasks or names
    both = not (args.solutions or args.ladders or args.experts)
    todo: list[tuple[str, str, Path]] = []
    for name in chosen if (both or args.ladders or args.experts) else []:
        task = load_task(name, REPO)
        if (both or args.ladders) and task.ladder:
            todo += [(name, rung, path) for rung, path in task.ladder if rung != "expert"]
        if (both or args.experts) and task.expert_path and task.expert_path.is_file():
            todo.append((name, "expert", task.expert_path))
    for spec in args.solutions:
        name, path = _task_of(spec, names)
        todo.append((name, path.name, path))
    return todo


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--record"]:
        print(json.dumps(record_one(argv[1], Path(argv[2]), "--all-workloads" in argv[3:])))
        return 0
    if argv[:1] == ["--compile"]:
        print(json.dumps(compile_all(Path(argv[1]), json.loads(sys.stdin.read()), "--resources" in argv[2:])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("solutions", nargs="*", metavar="SOLUTION", help="a solution file, or TASK=PATH")
    parser.add_argument("--tasks", nargs="+", help="only these tasks' ladders and experts (default: every task)")
    parser.add_argument("--ladders", action="store_true", help="check the ladder rungs")
    parser.add_argument("--experts", action="store_true", help="check the experts")
    parser.add_argument(
        "--resources", action="store_true", help="list each launch's registers, spills, shared memory and programs a SM"
    )
    parser.add_argument(
        "--all-workloads",
        action="store_true",
        help="record the launches of every workload, GPU-sized too (kernels skipped, not run)",
    )
    args = parser.parse_args(argv)
    try:
        todo = plan(args)
    except ValueError as exc:
        print(f"compile_check: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    outcomes = []
    for name, label, path in todo:
        outcomes.append(check(name, label, path, measure=args.resources, every_workload=args.all_workloads))
        print(table([outcomes[-1]])[1], flush=True)
    print("\n".join(table(outcomes)))
    print(f"({time.perf_counter() - started:.0f} s; target sm_90, compiled to cubin without a GPU)")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
