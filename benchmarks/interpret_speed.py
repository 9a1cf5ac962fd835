"""How much the interpreter's speed-ups (workbench/harness/solution_side/interpreter_speed.py) save, and that they
change no answer: each solution's interpret workloads run in Triton's CPU interpreter with the harness's patches, once
with the speed-ups and once without (each in a child process of its own), timed around the solution's calls.

    python benchmarks/interpret_speed.py [--tasks T ...] [--rungs]      the experts (and with --rungs the ladder rungs)

Prints per solution the seconds with and without, the ratio, and the largest difference between the two runs'
outputs (the speed-ups reorder a combine function's applications into a tree, as the GPU does, so fp32 results may
differ in the last bits; an integer or order-exact one not at all). Outside the harness: no worker, no guard.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from workbench.tasks import load_task, task_names  # noqa: E402

CHILD = """
import importlib.util, json, os, sys, time
import torch
from workbench.harness.solution_side import interpreter_speed, triton_patches
if sys.argv[3] == "off":
    interpreter_speed.SPEEDUPS = ()
triton_patches.apply(interpret=True)
from pathlib import Path
from workbench.tasks import load_task

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

task = load_task(sys.argv[1], Path(os.getcwd()))
inputs, solution = load("inputs", task.path / "inputs.py"), load("solution", sys.argv[2])
seconds, outputs = 0.0, []
for workload in [w for w in task.workloads if w.interpret]:
    args = inputs.make_inputs(workload.params, 0, torch.device("cpu"))
    started = time.perf_counter()
    out = solution.solution(*args)
    seconds += time.perf_counter() - started
    outputs += [o.double().flatten().tolist() for o in (out if isinstance(out, tuple) else (out,))]
print("RESULT " + json.dumps({"seconds": seconds, "outputs": outputs}))
"""


def run(task: str, solution: Path, speedups: str) -> dict:
    env = {"TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", CHILD, task, str(solution), speedups], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=1800)  # fmt: skip
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise RuntimeError(f"{task} {solution.name} ({speedups}): {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def largest_difference(a: list[list[float]], b: list[list[float]]) -> float:
    worst = 0.0
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            if u != v and not (u != u and v != v):  # NaN in both places is the same answer
                worst = max(worst, abs(u - v))
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="+", default=None)
    parser.add_argument("--rungs", action="store_true", help="the ladder rungs too")
    args = parser.parse_args(argv)
    rows = [("task", "solution", "with s", "without s", "ratio", "max |diff|")]
    total_with = total_without = 0.0
    for name in args.tasks or task_names(REPO):
        task = load_task(name, REPO)
        solutions = [(rung, path) for rung, path in task.ladder if args.rungs or rung == "expert"]
        for rung, path in solutions:
            fast, slow = run(name, path, "on"), run(name, path, "off")
            total_with, total_without = total_with + fast["seconds"], total_without + slow["seconds"]
            diff = largest_difference(fast["outputs"], slow["outputs"])
            rows.append((name, rung, f"{fast['seconds']:.2f}", f"{slow['seconds']:.2f}",
                         f"{slow['seconds'] / max(fast['seconds'], 1e-9):.1f}x", f"{diff:.3g}"))  # fmt: skip
            print(" ".join(rows[-1]), file=sys.stderr, flush=True)
    rows.append(("total", "", f"{total_with:.1f}", f"{total_without:.1f}",
                 f"{total_without / max(total_with, 1e-9):.1f}x", ""))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
