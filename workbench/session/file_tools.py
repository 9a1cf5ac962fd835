"""The file tools: read_file (numbered lines), write_file, edit_file, list_files, all inside the workspace.

Paths are the model's: they may hold a NUL, point outside (absolute, `..`, a symlink out), name a folder where a
file belongs or a file that is not UTF-8 text. Each of these is a ToolError with what to do instead. Line numbers
are Python's (lines end at "\\n" only), so that `solution.py:22` in a traceback is line 22 here too.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from workbench.session.tool_args import ToolError
from workbench.session.tool_specs import READ_LIMIT_LINES
from workbench.session.tool_text import is_clean_name
from workbench.session.workspace import SKIP_DIRS, resolve_inside

READ_CAP = 40_000  # characters read_file shows at once
LINE_CAP = 2_000  # characters of one line (a minified blob, a long data row) before it is cut
READ_MAX_BYTES = 16 << 20  # larger files are for bash (head, sed -n, grep)
LIST_CAP = 1_000  # entries list_files shows
SNIPPET_CONTEXT = 3  # lines shown around an edit


def workspace_path(work: Path, value: str) -> Path:
    """The model's path, resolved inside the workspace (WorkspaceError where it leads out)."""
    if "\x00" in value:
        raise ToolError(f"{value!r}: a path cannot hold a NUL character")
    try:
        os.fsencode(value)
    except UnicodeEncodeError:  # a lone surrogate from a JSON \udXXX escape that stands for no byte
        raise ToolError(f"{value}: a path cannot hold a lone surrogate character") from None
    try:
        return resolve_inside(work, value)
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        raise ToolError(f"{value}: cannot be resolved ({exc})") from None


def _text_lines(text: str) -> list[str]:
    """Lines as Python numbers them: split at \\n only (not at \\f or \\u2028, which splitlines() also splits at)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _numbered(number: int, line: str) -> str:
    if len(line) > LINE_CAP:
        line = f"{line[:LINE_CAP]} [... line cut: {len(line):,} characters in all]"
    return f"{number:6d}\t{line}"


def _readable_file(work: Path, shown: str) -> Path:
    path = workspace_path(work, shown)
    if path.is_dir():
        raise ToolError(f"{shown} is a folder: list_files shows what it holds")
    if not path.exists():
        hint = _close_names(path)
        raise ToolError(f"no file {shown}" + (f" (did you mean {hint}?)" if hint else ""))
    if not path.is_file():  # reading a pipe would wait for a writer that never comes
        raise ToolError(f"{shown} is not a regular file (a pipe, socket or device): look at it with bash")
    size = path.stat().st_size
    if size > READ_MAX_BYTES:
        raise ToolError(f"{shown} is {size:,} bytes, too large for the file tools: look at parts of it with bash "
                        "(head, sed -n '100,200p', grep -n)")  # fmt: skip
    return path


def _close_names(path: Path) -> str | None:
    try:
        names = [p.name for p in path.parent.iterdir()] if path.parent.is_dir() else []
    except OSError:
        return None
    close = difflib.get_close_matches(path.name, names, n=1)
    return close[0] if close else None


def read_file(work: Path, shown: str, offset: int = 1, limit: int | None = None) -> str:
    """Lines `offset`.. of a file, numbered, with where they sit in the file and how to read on."""
    data = _readable_file(work, shown).read_bytes()
    if b"\x00" in data[:8192]:
        return f"{shown} is a binary file ({len(data):,} bytes), not shown: inspect it with bash (xxd {shown} | head)"
    note = ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="backslashreplace")
        note = f"\n[note: {shown} is not valid UTF-8 (first bad byte at offset {exc.start}); such bytes show as \\xNN]"
    lines = _text_lines(text)
    if not lines:
        return f"({shown} is empty)"
    if offset > len(lines):
        raise ToolError(f"offset {offset} is past the end: {shown} has {len(lines)} lines")
    start = offset - 1
    end = min(len(lines), start + (limit or READ_LIMIT_LINES))
    shown_lines: list[str] = []
    chars, capped = 0, False
    for index in range(start, end):
        entry = _numbered(index + 1, lines[index])
        if shown_lines and chars + len(entry) + 1 > READ_CAP:
            end, capped = index, True
            break
        shown_lines.append(entry)
        chars += len(entry) + 1
    if start == 0 and end == len(lines):
        footer = f"[{shown}: {len(lines)} lines, all shown]"
    else:
        footer = f"[{shown}: lines {start + 1}-{end} of {len(lines)}"
        if capped:
            footer += f" (cut at {READ_CAP:,} characters)"
        footer += f"; read on with offset={end + 1}]" if end < len(lines) else "]"
    return "\n".join(shown_lines) + "\n" + footer + note


def write_file(work: Path, shown: str, content: str) -> str:
    path = workspace_path(work, shown)
    if path.is_dir():
        raise ToolError(f"{shown} is a folder: give write_file the path of a file in it (e.g. {shown.rstrip('/')}/"
                        "notes.md)")  # fmt: skip
    if path.exists() and not path.is_file():
        raise ToolError(f"{shown} is not a regular file (a pipe, socket or device): write_file writes files only")
    data = _encoded(content, "content")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(f"{shown}: a part of this path is a file, not a folder") from None
    existed = path.exists()
    path.write_bytes(data)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    return (
        f"wrote {shown} ({lines} lines, {len(data):,} bytes; {'replaced its old content' if existed else 'new file'})"
    )


def _encoded(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, from a JSON \\udXXX escape
        raise ToolError(f"{what} holds a character that is not valid UTF-8 text (a lone surrogate at position "
                        f"{exc.start}): write text only") from None  # fmt: skip


def edit_file(work: Path, shown: str, old: str, new: str, replace_all: bool = False) -> str:
    """Replace `old` by `new` (once, or everywhere with replace_all); returns what changed with the lines around."""
    path = _readable_file(work, shown)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): edit_file "
            "edits text files only; replace it whole with write_file, or change it with bash"
        ) from None
    count = text.count(old)
    if count == 0:
        raise ToolError(f"the text to replace does not occur in {shown}{_near_miss(text, old)}")
    if count > 1 and not replace_all:
        where = ", ".join(str(n) for n in _occurrence_lines(text, old)[:10])
        raise ToolError(f"the text to replace occurs {count} times in {shown} (at lines {where}); give more "
                        "context to make it unique, or replace_all=true")  # fmt: skip
    first = text.index(old)
    result = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    path.write_bytes(_encoded(result, "new"))
    first_line = text.count("\n", 0, first) + 1
    last_line = first_line + new.count("\n")
    lines = _text_lines(result)
    low, high = max(1, first_line - SNIPPET_CONTEXT), min(len(lines), last_line + SNIPPET_CONTEXT)
    snippet = "\n".join(_numbered(n, lines[n - 1]) for n in range(low, high + 1))
    plural = "s" if count > 1 else ""
    return f"edited {shown}: {count} replacement{plural}, the first at line {first_line}; now:\n{snippet}"


def _occurrence_lines(text: str, old: str) -> list[int]:
    found, at = [], text.find(old)
    while at >= 0:
        found.append(text.count("\n", 0, at) + 1)
        at = text.find(old, at + len(old))
    return found


def _near_miss(text: str, old: str) -> str:
    """Where the model's text almost is: its first line with other indentation or line endings."""
    if "\r\n" in text and "\r\n" not in old:
        return " (note: the file has Windows line endings, \\r\\n)"
    first = next((line.strip() for line in old.split("\n") if line.strip()), "")
    lines = [n for n, line in enumerate(_text_lines(text), 1) if first and first in line]
    if not lines:
        return "; read the file again to see its current text"
    where = ", ".join(str(n) for n in lines[:5])
    return (f"; its first line occurs at line {where}, so the rest differs (indentation, spacing or later lines): "
            "read those lines and copy the text exactly")  # fmt: skip


def list_files(work: Path, shown: str | None = None) -> str:
    """The workspace's files (or one folder's), with sizes; symlinks with their targets, hidden entries left out."""
    root_of_work = work.resolve()
    root = workspace_path(work, shown) if shown else root_of_work
    if not root.exists():
        raise ToolError(f"no folder {shown}")
    if not root.is_dir():
        return _entry(root, root_of_work)
    entries: dict[str, str] = {}
    hidden = 0
    for folder, dirnames, filenames in os.walk(root):
        folders = [d for d in dirnames if not (d.startswith(".") or d in SKIP_DIRS)]
        files = [f for f in filenames if not f.startswith(".")]
        hidden += len(dirnames) - len(folders) + len(filenames) - len(files)
        dirnames[:] = [d for d in folders if not Path(folder, d).is_symlink()]  # a linked folder is listed, not walked
        for name in folders + files:
            path = Path(folder, name)
            entries[str(path.relative_to(root_of_work))] = _entry(path, root_of_work)
    if not entries:
        return "(empty)"
    lines = [entries[key] for key in sorted(entries)]
    if len(lines) > LIST_CAP:
        more = len(lines) - LIST_CAP
        lines = lines[:LIST_CAP] + [f"[... and {more:,} more entries: list one folder with path=...]"]
    if hidden:
        lines.append(
            f"[{hidden} hidden entries not listed (names starting with '.', caches); bash `ls -la` shows them]"
        )
    return "\n".join(lines)


def _entry(path: Path, root: Path) -> str:
    relative = str(path.relative_to(root))
    flag = "" if is_clean_name(relative) else "; its name is not UTF-8, shown with \\xNN escapes: rename it with bash"
    try:
        if path.is_symlink():
            target = os.readlink(path)
            if not path.exists():
                return f"{relative} -> {target} (dangling symlink{flag})"
            inside = path.resolve() == root or root in path.resolve().parents
            where = "" if inside else ", points out of the workspace: the file tools refuse it"
            return f"{relative} -> {target} (symlink{where}{flag})"
        if path.is_dir():
            return f"{relative}/" + (f" ({flag[2:]})" if flag else "")
        return f"{relative} ({path.stat().st_size:,} bytes{flag})"
    except OSError as exc:
        return f"{relative} (cannot be read: {exc.strerror}{flag})"
