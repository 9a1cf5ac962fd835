"""What the profile tool runs under the profiler, confined: one workload of solution.py, a few calls.

`python profile_driver.py INPUTS_PY SOLUTION_PY PARAMS_JSON SEED`. Standard library and torch only, run as
a file copied out of the package: the sandbox shows neither the project nor the workbench package.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path

CALLS = 3  # the first compiles; the profiler sees the later ones too


def _load(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    import torch

    inputs = _load("_task_inputs", Path(argv[0]))
    solution = _load("solution", Path(argv[1])).solution
    args = inputs.make_inputs(json.loads(argv[2]), int(argv[3]), torch.device("cuda"))
    for _ in range(CALLS):
        solution(*args)
    torch.cuda.synchronize()
    print(f"profiled: {CALLS} calls of solution()")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
