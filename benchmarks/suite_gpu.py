"""Evaluates every expert and every wrong solution on the GPU and prints the tables of docs/h200.md:
per task and workload the reference and expert latency, speedup and SOL fraction; per wrong
solution the verdict against its `# expect:` line. Saves each eval's JSON beside the tables.

    python benchmarks/suite_gpu.py --out DIR [--tasks T ...] [--skip-wrong]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.cli import json_safe  # noqa: E402
from workbench.harness import EvalOptions, EvalResult, evaluate  # noqa: E402
from workbench.harness.verdict import expected_verdict, verdicts  # noqa: E402
from workbench.tasks import load_task, project_root, task_names  # noqa: E402


def expert_table(results: list[EvalResult]) -> list[str]:
    lines = [
        "| task | workload | reference us | expert us | speedup | SOL us | SOL fraction | n |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        for w in r.workloads:
            if not w.correct or not w.latency_ms or not w.reference_ms:
                lines.append(f"| {r.task} | {w.name} | | | INCORRECT: {w.failure} {w.error or ''} | | | |")
                continue
            lines.append(
                f"| {r.task} | {w.name} | {w.reference_ms.median * 1e3:.1f} | {w.latency_ms.median * 1e3:.1f} "
                f"| {w.speedup:.2f} | {w.sol_ms * 1e3:.1f} | {w.sol_fraction:.0%} | {w.latency_ms.n} |"
            )
    return lines


def wrong_table(names: list[str]) -> list[str]:
    lines = ["| wrong solution | expected | verdict | ok |", "| --- | --- | --- | --- |"]
    for name in names:
        for path in sorted((project_root() / "guidance" / name / "wrong").glob("*.py")):
            task = load_task(name)
            result = evaluate(task, path, EvalOptions(mode="cuda", seeds=2, timing={"budget_s": 0.5}))
            found, expected = verdicts(result), expected_verdict(path)
            ok = "yes" if expected in found and not result.correct else "NO"
            lines.append(f"| {name}/{path.name} | {expected} | {', '.join(sorted(found))} | {ok} |")
            print(f"wrong {name}/{path.name}: expected {expected}, got {sorted(found)}", flush=True)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", nargs="+")
    parser.add_argument("--skip-wrong", action="store_true")
    parser.add_argument("--only-wrong", action="store_true", help="only the wrong solutions (to wrong.md)")
    parser.add_argument("--budget", type=float, default=3.0, help="timing seconds per function and workload")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    names = args.tasks or task_names()
    if args.only_wrong:
        lines = wrong_table(names)
        (args.out / "wrong.md").write_text("\n".join(lines) + "\n")
        print("\n".join(lines))
        return 0
    experts = []
    for name in names:
        task = load_task(name)
        started = time.perf_counter()
        result = evaluate(task, task.expert_path, EvalOptions(mode="cuda", timing={"budget_s": args.budget}))
        wall = time.perf_counter() - started
        (args.out / f"expert-{name}.json").write_text(json.dumps(json_safe(result.to_dict()), indent=1))
        experts.append(result)
        print(f"expert {name}: {'correct' if result.correct else 'NOT CORRECT'} in {wall:.0f} s; "
              + "; ".join(w.summary() for w in result.workloads) + (f" error: {result.error}" if result.error else ""),
              flush=True)  # fmt: skip
    device = next((r.device for r in experts if r.device), None)
    ceilings = next((r.ceilings for r in experts if r.ceilings), None)
    lines = [f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {device.name if device else '?'} "
             f"(driver {device.driver if device else '?'}, torch {device.torch if device else '?'}, "
             f"triton {device.triton if device else '?'}) with `python benchmarks/suite_gpu.py`.", ""]  # fmt: skip
    if ceilings:
        lines += [f"SOL ceilings: {ceilings['bandwidth_gbps']:.0f} GB/s copy, {ceilings['matmul_tflops']:.0f} "
                  f"TFLOP/s bf16 matmul ({ceilings['method']}).", ""]  # fmt: skip
    lines += expert_table(experts)
    if not args.skip_wrong:
        lines += ["", *wrong_table(names)]
    table = "\n".join(lines)
    (args.out / "suite.md").write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
