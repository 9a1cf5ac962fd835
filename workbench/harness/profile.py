"""Run one workload of a solution a few times, for a profiler to watch:
`python -m workbench.harness.profile TASK_DIR SOLUTION WORKLOAD` (the session's profile tool runs it
under Nsight Compute)."""

from __future__ import annotations

import sys
from pathlib import Path

from workbench.tasks import load_task


def main(argv: list[str]) -> int:
    import torch

    from workbench.harness.worker import _load_module

    task = load_task(Path(argv[0]))
    workload = task.workload(argv[2])
    inputs = _load_module("_workbench_task_inputs", task.file("inputs.py"))
    solution = _load_module("solution", Path(argv[1])).solution
    args = inputs.make_inputs(dict(workload.params), workload.seed, torch.device("cuda"))
    for _ in range(3):  # the first call compiles; the profiler sees the later ones too
        solution(*args)
    torch.cuda.synchronize()
    print(f"profiled {task.name}/{workload.name}: 3 calls of solution()")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
