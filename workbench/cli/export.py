"""`workbench export SESSION [--compare OTHER] --html OUT.html`: a session (or two) as one static page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.cli.errors import EXIT_OK, UsageError


def add_parser(sub: Any) -> None:
    export = sub.add_parser("export", help="a session as one self-contained HTML page (or two, side by side)")
    export.add_argument("session", type=Path, help="the session's folder (or its id under --sessions)")
    export.add_argument("--compare", type=Path, metavar="OTHER", help="a second session, shown side by side")
    export.add_argument("--html", type=Path, required=True, metavar="OUT", help="the page to write")
    export.add_argument("--sessions", type=Path, help="sessions folder for ids (default: ./sessions or "
                        "$WORKBENCH_SESSIONS)")  # fmt: skip


def export_command(args: argparse.Namespace) -> int:
    from workbench.export import ExportError, export_html

    try:
        session = _find(args.session, args.sessions)
        other = _find(args.compare, args.sessions) if args.compare is not None else None
        written = export_html(session, args.html, other)
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {written}")
    return EXIT_OK


def _find(given: Path, sessions: Path | None) -> Path:
    """A session's folder: the path as given, else a session of that id in the sessions folder."""
    from workbench.session.store import sessions_root

    if given.is_dir():
        return given
    by_id = sessions_root(sessions) / given
    if len(given.parts) == 1 and by_id.is_dir():
        return by_id
    raise UsageError(f"no session {given} (neither a folder nor a session id in {sessions_root(sessions)})")
