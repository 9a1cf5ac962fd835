"""The agent's workspace: what it may see of a task, and snapshots of its text files per turn.

An agent gets the task's files and, when guided, GUIDANCE.md with its levels. Never the expert
kernel, the wrong solutions, the other levels or other tasks. After each turn the text files that
changed are recorded in the log, so any turn's workspace can be rebuilt from the log alone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from workbench.guidance import guidance_markdown, load_guidance
from workbench.tasks import TASK_FILES, Task

SNAPSHOT_MAX_BYTES = 256 * 1024  # larger files (logs, binaries) are not snapshotted
SKIP_DIRS = {"__pycache__", ".triton", ".cache"}


class WorkspaceError(ValueError):
    """A path that leaves the workspace, or a file the tools cannot handle."""


def create_workspace(task: Task, work: Path, levels: set[int]) -> None:
    work.mkdir(parents=True, exist_ok=False)
    for name in TASK_FILES:
        shutil.copy2(task.file(name), work / name)
    if levels:
        if task.guidance_path is None:
            raise WorkspaceError(f"task {task.name} has no guidance to give")
        items = load_guidance(task.guidance_path)
        (work / "GUIDANCE.md").write_text(guidance_markdown(items, levels))


def resolve_inside(work: Path, relative: str) -> Path:
    """The absolute path of `relative` inside the workspace; anything that escapes it (.., an
    absolute path elsewhere, a symlink pointing out) is refused."""
    root = work.resolve()
    candidate = (root / relative).resolve()
    if candidate != root and root not in candidate.parents:
        raise WorkspaceError(f"{relative}: outside the workspace")
    return candidate


def text_files(work: Path) -> dict[str, str]:
    """Every small text file of the workspace by relative path."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for filename in filenames:
            path = Path(dirpath, filename)
            if path.is_symlink() or path.stat().st_size > SNAPSHOT_MAX_BYTES:
                continue
            try:
                files[str(path.relative_to(work))] = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
    return files


def diff_files(before: dict[str, str], after: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """What changed between two snapshots: new or changed files with their content, and deletions."""
    changed = {path: text for path, text in after.items() if before.get(path) != text}
    deleted = sorted(set(before) - set(after))
    return changed, deleted


def apply_files(work: Path, changed: dict[str, str], deleted: list[str]) -> None:
    for relative, text in changed.items():
        path = resolve_inside(work, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for relative in deleted:
        resolve_inside(work, relative).unlink(missing_ok=True)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
