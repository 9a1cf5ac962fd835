"""Session logs for the judge's tests, made from its fixture session's (judge_helpers.EXAMPLE): events edited as JSON
and renumbered."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from judge_helpers import EXAMPLE

Event = dict[str, Any]


def copy_example(tmp_path: Path) -> Path:
    folder = tmp_path / EXAMPLE.name
    shutil.copytree(EXAMPLE, folder)
    return folder


def load(folder: Path) -> list[Event]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]


def save(folder: Path, events: list[Event]) -> None:
    """Write the events back, numbered afresh in order."""
    for seq, event in enumerate(events):
        event["seq"] = seq
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def index_of(events: list[Event], kind: str, turn: int) -> int:
    """The index of the first event of `kind` in `turn`."""
    return next(i for i, e in enumerate(events) if e["kind"] == kind and e["turn"] == turn)


def files_at(events: list[Event], turn: int) -> dict[str, str]:
    """The workspace's text files at the end of `turn`, from the log's `files` events."""
    files: dict[str, str] = {}
    for event in events:
        if event["kind"] == "files" and event["turn"] <= turn:
            files.update(event["changed"])
            for path in event["deleted"]:
                files.pop(path, None)
    return files


def submission(turn: int, result: dict[str, Any], files: dict[str, str] | None, by: str = "agent",
               final: bool = True) -> Event:  # fmt: skip
    event: Event = {"seq": 0, "time": 0.0, "turn": turn, "kind": "submission", "by": by, "final": final,
                    "summary": "submitted", "result": result}  # fmt: skip
    if files is not None:
        event["files"] = {k: v for k, v in files.items() if k in ("solution.py", "DESIGN.md")}
    return event


def files_event(turn: int, changed: dict[str, str]) -> Event:
    return {"seq": 0, "time": 0.0, "turn": turn, "kind": "files", "changed": changed, "deleted": []}


def result(correct: bool, speedup: float | None) -> dict[str, Any]:
    """An eval result as the log holds one, with only what the scoring reads."""
    return {"task": "rmsnorm_residual", "correct": correct, "speedup_geomean": speedup, "workloads": []}


def as_version_2(events: list[Event], scoring: str) -> None:
    """The log marked as schema 2 (submissions keep their files) under the scoring rule `scoring`."""
    events[0]["version"] = 2
    events[0]["scoring"] = scoring
