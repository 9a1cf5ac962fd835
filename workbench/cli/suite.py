"""`workbench suite`: the suite's experts on the GPU, from the latest recorded run (or one named)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from workbench.cli.errors import EXIT_OK, UsageError
from workbench.cli.tasks import load_all
from workbench.jsonsafe import json_safe
from workbench.tasks import load_task, project_root


def add_parser(sub: Any) -> None:
    su = sub.add_parser("suite", help="the suite's expert latencies, speedups, SOL and ladders from a recorded GPU run")
    su.add_argument("--run", type=Path, help="a suite.json (default: the latest under docs/runs/)")
    su.add_argument("--json", action="store_true")
    su.add_argument("--task", help="one task: its design ladder, each level's step (and --eval beside them)")
    su.add_argument("--eval", type=Path, help="with --task: an `eval --json` result to place among the rungs")
    su.add_argument("--peers", type=Path, help="a peers.json of production kernels' figures (default: the latest)")


def suite_command(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from workbench.ladder_report import ladder_markdown
    from workbench.peers import PEERS_FILE, PeersError, load_peers
    from workbench.suite import SuiteRunError, latest_run, load_run, render_markdown, summary, workload_rows

    path = args.run or latest_run(project_root())
    if path is None:
        runs = project_root() / "docs" / "runs"
        raise UsageError(f"no recorded suite run under {runs}: run benchmarks/suite_gpu.py on a GPU")
    try:
        run = load_run(path)
    except SuiteRunError as exc:
        raise UsageError(str(exc)) from None
    if args.eval and not args.task:
        raise UsageError("--eval needs --task: the task whose ladder the result is placed on")
    if args.task and not args.json:
        result = _saved_eval(args.eval, args.task)
        print(ladder_markdown(load_task(args.task), run, result, who="eval" if args.eval else None), end="")
        return EXIT_OK
    peers_path = args.peers or latest_run(project_root(), PEERS_FILE)
    try:
        peers = load_peers(peers_path) if peers_path is not None else None
    except PeersError as exc:
        raise UsageError(str(exc)) from None
    rows = workload_rows(run, [load_task(args.task)] if args.task else load_all(), peers)
    if args.json:
        doc = {"run": str(path), "measured_on": run.where(), "measured_at": run.measured_at, "device": run.device,
               "ceilings": run.ceilings, "command": run.command, "summary": summary(rows),
               "peers": str(peers.path) if peers else None, "workloads": [asdict(r) for r in rows]}  # fmt: skip
        print(json.dumps(json_safe(doc), indent=2))
    else:
        print(render_markdown(run, rows, peers), end="")
    return EXIT_OK


def _saved_eval(path: Path | None, task_name: str) -> dict[str, Any] | None:
    """An `eval --json` result from disk, checked to be one of this task's."""
    if path is None:
        return None
    try:
        result = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not an eval result ({exc})") from None
    if not isinstance(result, dict) or not isinstance(result.get("workloads"), list):
        raise UsageError(f"{path}: not an eval result (no 'workloads' list)")
    if result.get("task") != task_name:
        raise UsageError(f"{path}: an eval of task {result.get('task')!r}, not {task_name!r}")
    return result
