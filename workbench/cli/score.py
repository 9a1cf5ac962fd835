"""`workbench score RESULTS...`: per-task speedup and Sperf from saved `eval --json` results."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from workbench.cli.errors import EXIT_OK, UsageError


def add_parser(sub: Any) -> None:
    sc = sub.add_parser("score", help="per-task speedup and Sperf from saved `eval --json` results")
    sc.add_argument("results", nargs="+", type=Path, help="eval result JSON files")
    sc.add_argument("--baseline", type=Path, help="baseline latencies (task -> workload -> ms)")
    sc.add_argument("--json", action="store_true")


def score_command(args: argparse.Namespace) -> int:
    from workbench.harness.result import EvalResult
    from workbench.score import ScoreError, load_baseline, sperf, task_score

    try:
        baseline = load_baseline(args.baseline) if args.baseline else None
        results = []
        for path in args.results:
            try:
                results.append(EvalResult.from_dict(json.loads(path.read_text())))
            except (OSError, json.JSONDecodeError, TypeError, KeyError) as exc:
                raise UsageError(f"{path}: not an eval result ({exc})") from None
        scores = [task_score(r, baseline) for r in results]
        total = sperf(scores)
    except ScoreError as exc:
        raise UsageError(str(exc)) from None
    against = f"baseline {args.baseline}" if args.baseline else "the reference"
    if args.json:
        print(json.dumps({"against": against, "sperf": total, "tasks": [s.__dict__ for s in scores]}, indent=2))
    else:
        for s in scores:
            shown = f"{s.speedup:.3f}x" if s.speedup is not None else "incorrect (counts 0.5)"
            print(f"{s.task:24} {shown}")
        print(f"Sperf over {len(scores)} tasks against {against}: {total:.3f}")
    return EXIT_OK
