"""`workbench tasks`: the suite's tasks and their workloads."""

from __future__ import annotations

import argparse
import json
from typing import Any

from workbench.cli.errors import EXIT_OK, UsageError
from workbench.tasks import Task, load_task, project_root, task_names


def add_parser(sub: Any) -> None:
    tasks = sub.add_parser("tasks", help="list the tasks and their workloads")
    tasks.add_argument("--json", action="store_true", help="print JSON")


def load_all() -> list[Task]:
    names = task_names()
    if not names:
        raise UsageError(f"no tasks found under {project_root() / 'tasks'}")
    return [load_task(n) for n in names]


def tasks_command(args: argparse.Namespace) -> int:
    tasks = load_all()
    if args.json:
        print(json.dumps([_task_json(t) for t in tasks], indent=2))
        return EXIT_OK
    total = sum(len(t.workloads) for t in tasks)
    print(f"{len(tasks)} tasks, {total} workloads ({project_root()})")
    for task in tasks:
        print(f"\n{task.name} — {task.title}\n  {task.summary}")
        for w in task.workloads:
            flag = " [interpret]" if w.interpret else ""
            print(f"  - {w.name}: {w.describe()}{flag}")
    return EXIT_OK


def _task_json(task: Task) -> dict[str, Any]:
    return {
        "name": task.name,
        "title": task.title,
        "summary": task.summary,
        "workloads": [{"name": w.name, "seed": w.seed, "interpret": w.interpret, **w.params} for w in task.workloads],
    }
