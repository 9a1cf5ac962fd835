"""The agent's workspace: what it may see of a task, and snapshots of its text files per turn.

An agent gets the task's files and, when guided, GUIDANCE.md with its levels. Never the expert
kernel, the wrong solutions, the other levels or other tasks. After each turn the text files that
changed are recorded in the log, so any turn's workspace can be rebuilt from the log alone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Collection
from pathlib import Path

from workbench.guidance import guidance_markdown, load_guidance
from workbench.tasks import TASK_FILES, Task

SNAPSHOT_MAX_BYTES = 256 * 1024  # larger files, and files that are not UTF-8 text, are kept as blobs ...
BLOB_MAX_BYTES = 64 << 20  # ... up to this size (a file larger still is neither logged nor restored)
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
    for path in _walk(work):
        if path.stat().st_size > SNAPSHOT_MAX_BYTES:
            continue
        try:
            files[str(path.relative_to(work))] = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
    return files


class BlobHashes:
    """sha256 of the workspace's files that are not snapshotted as text, by (path, size, mtime): a 60 MB file the
    agent left alone is hashed once, not after every turn."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, int, int], str] = {}

    def of(self, work: Path, text: Collection[str]) -> dict[str, str]:
        """relative path -> sha256 of every file up to BLOB_MAX_BYTES that is not in `text` (the workspace's
        text_files(), taken just before: each small file is read once)."""
        found = {}
        for path in _walk(work):
            relative = str(path.relative_to(work))
            stat = path.stat()
            if relative in text or stat.st_size > BLOB_MAX_BYTES:
                continue
            key = (relative, stat.st_size, stat.st_mtime_ns)
            if key not in self._known:
                try:
                    self._known[key] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    continue  # unreadable: neither text nor blob, as text_files() leaves it
            found[relative] = self._known[key]
        return found


def keep_blobs(work: Path, blobs: dict[str, str], store: Path) -> None:
    """Copy each file into the session's blob store under its hash (once; written whole, then renamed)."""
    store.mkdir(exist_ok=True)
    for relative, digest in blobs.items():
        target = store / digest
        if target.exists():
            continue
        partial = store / f".{digest}.partial"
        shutil.copyfile(resolve_inside(work, relative), partial)
        os.replace(partial, target)


def restore_blobs(work: Path, wanted: dict[str, str], known: set[str], store: Path) -> None:
    """Make the workspace's blob files what `wanted` says (from the store). A file is removed only when the log
    once recorded it (`known`) and the point restored to has none: a file the log never saw is left alone."""
    now = BlobHashes().of(work, text_files(work))
    for relative, digest in wanted.items():
        if now.get(relative) != digest:
            path = resolve_inside(work, relative)
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(store / digest, path)
    for relative in (set(now) & known) - set(wanted):
        resolve_inside(work, relative).unlink(missing_ok=True)


def _walk(work: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        found += [p for name in filenames if not (p := Path(dirpath, name)).is_symlink()]
    return found


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


def write_whole(path: Path, text: str) -> None:
    """Write a file so that no reader ever sees it part-written: a new file beside it, renamed over it. The app's
    own watcher reads solution.py as it is saved; a truncate-then-write would show it an empty file."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
