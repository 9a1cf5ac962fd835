"""The compile check of a design sweep's candidates, without a GPU: compile_check.py's own recorder runs the sweep
file's module-level `solution` (which calls every candidate, each with the tile configuration it would take on the
GPU workloads) on the task's interpret workloads, and compile_check.py's own compiler builds every recorded launch
for sm_90, against the file that defines its kernel (the expert's, for a candidate that only swaps its `_config`).

compile_check.py alone cannot do this: it compiles only the kernels defined in the solution file it is given."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

COMPILE_CHECK = Path(__file__).resolve().parent / "compile_check.py"


def _child(args: list[str], stdin: str) -> dict[str, Any]:
    import os

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}  # each step sets up Triton its own way
    done = subprocess.run([sys.executable, str(COMPILE_CHECK), *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=1800)  # fmt: skip
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"compile_check {args[0]} exited {done.returncode}: {tail}")
    found: dict[str, Any] = json.loads(lines[-1])
    return found


def compile_designs(task_name: str, sweep_file: Path) -> int:
    """Records and compiles every launch of `sweep_file`'s `solution`; prints a line per kernel file and the
    failures. Returns the exit status (1 when any launch fails to compile)."""
    recorded = _child(["--record", task_name, str(sweep_file.resolve())], "")
    if "error" in recorded:
        print(f"recording failed: {recorded['error']}")
        return 1
    by_file: dict[str, list[dict[str, Any]]] = {}
    for launch in recorded["launches"]:
        by_file.setdefault(launch["file"], []).append(launch)
    failed = 0
    for file, launches in by_file.items():
        found = _child(["--compile", file], json.dumps(launches))
        ok = not found["failures"] and found["compiled"] == found["recorded"]
        failed += not ok
        print(f"{file}: {found['recorded']} launches, {found['compiled']} compiled for sm_90", flush=True)
        shown = set()  # launches that differ only in their arguments' specialisation are listed once
        for launch in launches:
            options = {k: v["value"] for k, v in launch["kwargs"].items() if "value" in v}
            line = f"    {launch['kernel']} {options}"
            if line not in shown:
                shown.add(line)
                print(line)
        for failure in found["failures"]:
            print(f"    FAILED: {failure}")
    print("every launch compiled for sm_90" if not failed else f"{failed} kernel file(s) with failures")
    return 1 if failed else 0
