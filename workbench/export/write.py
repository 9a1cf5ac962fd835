"""Writing the page: the sessions read, the HTML made, then written to a temporary file beside OUT and renamed over
it, so that a failure anywhere leaves OUT as it was (absent, or the last complete page)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from workbench.export.page import compare_page, single_page
from workbench.export.view import SessionView, session_view
from workbench.session.events import LogError
from workbench.session.service import Session


class ExportError(ValueError):
    """A session that cannot be exported or a page that cannot be written: one line for the user."""


def export_html(folder: Path, out: Path, compare: Path | None = None) -> Path:
    """Write the page of the session in `folder` (beside the one in `compare`, when given) to `out`."""
    if not out.parent.is_dir():
        raise ExportError(f"{out}: the folder {out.parent} does not exist")
    views = [_read(folder)] + ([_read(compare)] if compare is not None else [])
    page = compare_page(views[0], views[1]) if len(views) == 2 else single_page(views[0])
    try:
        _write_atomically(out, page)
    except OSError as exc:  # a full disk, a read-only folder: said in one line, the old page (if any) kept
        raise ExportError(f"{out}: cannot write the page: {exc.strerror or exc}") from None
    return out


def _read(folder: Path) -> SessionView:
    if not folder.is_dir():
        raise ExportError(f"{folder}: no such session folder")
    try:
        return session_view(Session.open(folder))
    except OSError as exc:  # a log that exists but cannot be read (permissions, a folder named events.jsonl)
        raise ExportError(f"{folder}: cannot read its log: {exc.strerror or exc}") from None
    except LogError as exc:
        raise ExportError(str(exc)) from None


def _write_atomically(out: Path, page: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="replace") as stream:
            stream.write(page)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would keep a page meant for sharing from its readers
        os.replace(temporary, out)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
