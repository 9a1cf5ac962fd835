"""Where a worker was when its time ran out: it dumps its own Python stack (faulthandler) just before the checker's
deadline for a request, and the checker reads that dump from the worker's log once it has killed it.

In interpret mode a kernel runs as Python, so the dump names the kernel's own line; on CUDA it shows the call that
waited (a synchronize, a launch). The worker is untrusted and may switch the dump off: this is a diagnosis for the
person or agent whose kernel hung, never part of a verdict.
"""

from __future__ import annotations

import re
from pathlib import Path

DUMP_LEAD_S = 1.0  # the worker dumps this long before the checker's deadline, so the dump is in the log at the kill
FRAMES_SHOWN = 4
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+) in (?P<func>.+)$')


def dump_after(timeout_s: float) -> float | None:
    """When the worker should dump its stack for a request that has timeout_s to answer (None: too short to)."""
    return timeout_s - DUMP_LEAD_S if timeout_s > 2 * DUMP_LEAD_S else None


def hung_at(log: str, solution_dir: Path | None = None) -> str:
    """Where the log's last stack dump has the main thread: its innermost frame, then the solution's own frames
    (files in solution_dir), innermost first; "" when the log has no dump. E.g. 'solution.py:18 in solution', or
    'interpreter.py:1021 in _patch_lang; in the solution: solution.py:12 in _kernel < solution.py:30 in solution'."""
    start = log.rfind("Timeout (")
    if start < 0:
        return ""
    frames: list[tuple[str, str]] = []  # (path, 'name:line in func'), innermost first
    for line in log[start:].splitlines()[1:]:
        if frames and not line.startswith("  "):
            break  # the first thread's block ended (dump_traceback_later lists the thread that was running first)
        match = _FRAME.match(line)
        if match:
            frames.append((match["path"], f"{Path(match['path']).name}:{match['line']} in {match['func'].strip()}"))
    if not frames:
        return ""
    own = [shown for path, shown in frames if solution_dir is not None and Path(path).parent == solution_dir]
    if not own or frames[0][1] == own[0]:
        return " < ".join(own[:FRAMES_SHOWN]) or frames[0][1]
    return f"{frames[0][1]}; in the solution: {' < '.join(own[:FRAMES_SHOWN])}"


def read_hung_at(log_path: Path, solution_dir: Path | None, tail_bytes: int = 64 << 10) -> str:
    try:
        with open(log_path, "rb") as log:
            log.seek(0, 2)
            log.seek(max(0, log.tell() - tail_bytes))
            return hung_at(log.read().decode(errors="replace"), solution_dir)
    except OSError:
        return ""
