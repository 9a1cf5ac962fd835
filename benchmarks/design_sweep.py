"""What the design sweeps (`benchmarks/*_designs.py`) share: a task's files loaded once, the harness's own
correctness check, do_bench timing and the markdown table. Each sweep keeps only its designs and its extra
columns, so every sweep judges "correct" exactly as `workbench eval` does."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.harness.checker import load_module  # noqa: E402
from workbench.harness.compare import Comparison, compare_outputs  # noqa: E402
from workbench.tasks import Task, Workload, load_task  # noqa: E402


@dataclass
class TaskFiles:
    task: Task
    inputs: ModuleType
    reference: Callable[..., Any]
    expert: ModuleType

    def workloads(self, interpret: bool, names: list[str] | None = None) -> list[Workload]:
        """The interpret workloads, or the GPU-sized ones (all, or those named)."""
        return [w for w in self.task.workloads if w.interpret == interpret and (not names or w.name in names)]

    def ladder_modules(self) -> dict[str, ModuleType]:
        """The task's design-ladder rungs below the expert (plain, l1, l1_l2), as loaded modules."""
        return {rung: load_module(f"_designs_{rung}", path) for rung, path in self.task.ladder[:-1]}


def load(task_name: str) -> TaskFiles:
    task = load_task(task_name)
    return TaskFiles(
        task,
        load_module("_designs_inputs", task.file("inputs.py")),
        load_module("_designs_reference", task.file("reference.py")).reference,
        load_module("_designs_expert", task.expert_path),
    )


def with_attrs(module: ModuleType, attrs: dict[str, Any]) -> Callable[..., Any]:
    """The module's solution with `attrs` set on the module for the length of each call, then restored (for sweeps
    over one expert's constants or rules)."""

    def solution(*args: Any) -> Any:
        saved = {name: getattr(module, name) for name in attrs}
        for name, value in attrs.items():
            setattr(module, name, value)
        try:
            return module.solution(*args)
        finally:
            for name, value in saved.items():
                setattr(module, name, value)

    return solution


def edited(path: Path, edits: dict[str, str]) -> ModuleType:
    """The module at `path` with each `old` replaced by `new` (each must occur), loaded from a file of its own: a
    candidate that differs from a kernel in its source, not in a constant."""
    import tempfile

    text = path.read_text()
    for old, new in edits.items():
        if old not in text:
            raise SystemExit(f"{old!r} is not in {path}")
        text = text.replace(old, new)
    copy = Path(tempfile.mkdtemp(prefix="sweep-edit-")) / path.name
    copy.write_text(text)
    return load_module(f"_edited_{abs(hash(tuple(edits.items())))}", copy)


def expert_candidates(files: TaskFiles, swaps: dict[str, dict[str, Any]], edits: dict[str, dict[str, str]],
                      chosen: list[str] | None) -> dict[str, Callable[..., Any]]:  # fmt: skip
    """The expert as shipped, the expert with each set of `swaps` (module attributes, see with_attrs), the expert with
    each set of source `edits` (see edited), and the rungs above plain; only those whose name holds one of `chosen`
    when it is given. A swap of an attribute the expert does not have stops the sweep."""
    for attrs in swaps.values():
        missing = [name for name in attrs if not hasattr(files.expert, name)]
        if missing:
            raise SystemExit(f"the {files.task.name} expert has no {', '.join(missing)} to swap")
    designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
    designs |= {name: with_attrs(files.expert, attrs) for name, attrs in swaps.items()}
    if edits and files.task.expert_path is not None:
        designs |= {name: edited(files.task.expert_path, e).solution for name, e in edits.items()}
    designs |= {f"{rung} rung": module.solution for rung, module in files.ladder_modules().items() if rung != "plain"}
    return {name: fn for name, fn in designs.items() if not chosen or any(c in name for c in chosen)}


def with_config(expert: ModuleType, config: Callable[..., Any]) -> Callable[..., Any]:
    """The expert's solution with its module-level `_config` rule replaced by `config` for the length of each call
    (for sweeps over one expert's tile configurations)."""
    return with_attrs(expert, {"_config": config})


def verdict(task: Task, got: Any, expected: Any) -> Comparison:
    """The harness's comparison: count, shape, dtype, NaN/Inf and poison, then the task's per-dtype tolerance."""
    tolerance = {k: (t.atol, t.rtol) for k, t in task.tolerance.items()}
    return compare_outputs(got, expected, task.outputs, tolerance)


def time_us(fn: Callable[[], Any]) -> float:
    import triton

    return triton.testing.do_bench(fn, warmup=25, rep=200) * 1e3  # flushes the L2 before each call


def error_cell(exc: Exception) -> str:
    return f"error: {type(exc).__name__}"


def error_detail(exc: Exception) -> str:
    """The exception's type and first line, for the progress log beside a table's `error: Type` cell."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:300] if lines else ''}"


def print_table(title: str | None, names: Iterable[str], headers: list[str], columns: list[dict[str, str]]) -> None:
    """A markdown table: a row per design name, a column per workload (a missing cell is left empty)."""
    if title:
        print(f"\n{title}")
    print("| design | " + " | ".join(headers) + " |")
    print("| --- |" + " --- |" * len(headers))
    for name in names:
        print(f"| {name} | " + " | ".join(c.get(name, "") for c in columns) + " |")


def sweep(files: TaskFiles, candidates: dict[str, Callable[..., Any]], names: list[str] | None, title: str) -> None:
    """Every candidate on every GPU workload (or those named): the harness's correctness verdict, then do_bench.
    Prints a line per measurement as it goes and the table at the end; a candidate that raises is a finding."""
    import torch

    workloads = files.workloads(interpret=False, names=names)
    print(f"{title} on {torch.cuda.get_device_name()}; microseconds (do_bench, L2 flushed)")
    columns = []
    for workload in workloads:
        inputs = files.inputs.make_inputs(dict(workload.params), workload.seed, torch.device("cuda"))
        expected = files.reference(*inputs)
        column = {}
        for name, fn in candidates.items():
            try:
                poison(expected)
                result = verdict(files.task, fn(*inputs), expected)
                us = time_us(lambda fn=fn, a=inputs: fn(*a))
                column[name] = f"{us:.1f}" if result.ok else f"WRONG ({us:.1f})"
                if not result.ok:
                    print(f"{workload.name} {name}: {result.message}", flush=True)
            except Exception as exc:  # a candidate that fails to compile is a finding, not the end of the table
                column[name] = error_cell(exc)
                print(f"{workload.name} {name}: {error_detail(exc)}", flush=True)
            print(f"{workload.name} {name}: {column[name]}", flush=True)
        columns.append(column)
        del inputs, expected
        torch.cuda.empty_cache()
    print_table(None, candidates, [w.name for w in workloads], columns)


def poison(expected: Any) -> None:
    """Fill blocks the size of each floating-point output with NaN and free them, so that the allocator most likely
    hands them to the candidate's torch.empty: an element it forgets to write then shows up as wrong (the harness
    poisons outputs the same way)."""
    import torch

    for out in expected if isinstance(expected, (tuple, list)) else [expected]:
        if isinstance(out, torch.Tensor) and out.is_floating_point() and out.layout == torch.strided:
            torch.empty_like(out).fill_(float("nan"))


def check_interpret(
    files: TaskFiles,
    candidates: dict[str, Callable[..., Any]],
    extra_shapes: Iterable[tuple[str, dict[str, Any], int]] = (),
) -> int:
    """Every candidate on the task's interpret workloads (and on `extra_shapes`: (name, params, seed) beyond the
    task's), on the CPU (TRITON_INTERPRET=1, the harness's interpreter patches applied): the harness's verdict on
    a poisoned allocator, and whether it left its inputs untouched. Returns the exit status."""
    import os

    import torch

    if os.environ.get("TRITON_INTERPRET") != "1":
        print("--check-interpret needs TRITON_INTERPRET=1 in the environment (set before Triton is imported)")
        return 2
    from workbench.harness.solution_side import triton_patches

    print("patches:", "; ".join(triton_patches.apply(interpret=True)))
    shapes = [(w.name, dict(w.params), w.seed) for w in files.workloads(interpret=True)] + list(extra_shapes)
    failures = 0
    for shape_name, params, seed in shapes:
        inputs = files.inputs.make_inputs(params, seed, torch.device("cpu"))
        expected = files.reference(*inputs)
        for name, fn in candidates.items():
            try:
                poison(expected)
                copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in inputs]
                result = verdict(files.task, fn(*copies), expected)
                untouched = all(
                    torch.equal(a, c) for a, c in zip(inputs, copies) if isinstance(a, torch.Tensor)
                )  # fmt: skip
                said = ("correct" if result.ok else f"WRONG ({result.message})") + (
                    "" if untouched else " (modified its inputs)"
                )
                ok = result.ok and untouched
                line = f"{said} (max abs err {result.max_abs_err:.2e})"
            except Exception as exc:  # a design that fails is a finding, not the end of the check
                ok, line = False, f"error: {error_detail(exc)}"
            failures += not ok
            print(f"{shape_name} {name}: {line}", flush=True)
    print(f"{len(candidates)} designs, {failures} not correct")
    return 1 if failures else 0


def load_peer(path: str) -> tuple[str, Any]:
    """A peer's wrapper, loaded from its path at run time (never imported by project code otherwise)."""
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"{Path(sys.argv[0]).name}: no peer file {path!r}")
    return f"peer {file.stem}", load_module("_designs_peer", file)


def print_autotuned(module: Any) -> None:
    """What each autotuned kernel of the peer chose, per autotuning key (Triton's Autotuner keeps them in .cache;
    @triton.heuristics wraps it, reached through .fn)."""
    for name, value in vars(module).items():
        for _ in range(3):
            cache = getattr(value, "cache", None)
            if isinstance(cache, dict) and hasattr(value, "configs"):
                for key, config in cache.items():
                    print(f"peer autotune {name} {key}: {config}", flush=True)
                break
            value = getattr(value, "fn", None)


def sweep_main(task: str, script: Path, doc: str | None,
               candidates: Callable[[TaskFiles, list[str] | None], dict[str, Callable[..., Any]]],
               interpret_shapes: Any) -> int:  # fmt: skip
    """The command line every design sweep shares: --workloads, --designs, --peer FILE (timed last, its autotuned
    picks printed), --check-interpret (on `interpret_shapes` too) and --compile-check (sweep_compile.py)."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+", default=None)
    parser.add_argument("--designs", nargs="+", default=None, help="only the designs whose name holds one of these")
    parser.add_argument("--peer", default=None, help="a peer's wrapper file (its solution), loaded at run time")
    parser.add_argument("--check-interpret", action="store_true")
    parser.add_argument("--compile-check", action="store_true")
    args = parser.parse_args()
    if args.compile_check:
        from sweep_compile import compile_designs

        return compile_designs(task, script)
    started = time.perf_counter()
    files = load(task)
    designs = candidates(files, args.designs)
    peer = load_peer(args.peer) if args.peer else None
    if peer:
        designs[peer[0]] = peer[1].solution  # last: its autotuning should not delay the expert's candidates
    if args.check_interpret:
        status = check_interpret(files, designs, interpret_shapes)
    else:
        sweep(files, designs, args.workloads, f"{task} designs")
        status = 0
    if peer:
        print_autotuned(peer[1])
    print(f"elapsed {time.perf_counter() - started:.1f} s", flush=True)
    return status
