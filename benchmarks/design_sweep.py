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

from workbench.harness.compare import Comparison, compare_outputs  # noqa: E402
from workbench.harness.worker import _load_module  # noqa: E402
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


def load(task_name: str) -> TaskFiles:
    task = load_task(task_name)
    return TaskFiles(
        task,
        _load_module("_designs_inputs", task.file("inputs.py")),
        _load_module("_designs_reference", task.file("reference.py")).reference,
        _load_module("_designs_expert", task.expert_path),
    )


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
