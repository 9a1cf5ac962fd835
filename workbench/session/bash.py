"""The agent's shell: runs in the workspace, with a timeout, capped output and no secrets.

Where confinement works, the command sees the workspace (read-write), the Python environment, the
system's programs, a private /tmp and (in CUDA sessions) the GPU, and nothing else of the host: no
network, its own PID namespace, limits on memory, file size and CPU time. Where it does not, the command
runs unconfined and the first result of the session says so, plainly.

The model sees the head and the tail of a long output, with what was cut from the middle counted: a build
log's first error and its last lines are both worth more than 16,000 characters of the end alone.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from workbench.harness.sandbox import Limits, confine, confinement, safe_environment

OUTPUT_CAP = 16_000  # characters of output the model sees: the head and the tail together
HEAD_CHARS = 6_000  # the first error of a build or a traceback's start ...
TAIL_CHARS = OUTPUT_CAP - HEAD_CHARS  # ... and the end, where the exit and the last error are
DECODE_WHOLE_BYTES = 32 << 20  # up to this size the output is decoded whole and the cut counted in characters
UNCONFINED_NOTE = (
    "note: this command ran UNCONFINED (no sandbox): it can read every file on this machine, "
    "reach the network and see other processes; this note is shown once per session"
)
MEMORY_BYTES, FILE_BYTES, PROCESSES = 8 << 30, 1 << 30, 2048
CPU_SLACK_S = 5  # CPU time allowed past the wall-clock timeout (several cores can run at once)
_noted: set[Path] = set()  # workspaces that were told they run unconfined: one session, one note


@dataclass
class CappedOutput:
    """What the model sees of an output: its head and tail, and how much of the middle was cut."""

    head: str
    tail: str = ""
    cut_lines: int = 0
    cut_amount: int = 0  # characters, or bytes where the output was too large to decode whole
    cut_unit: str = "characters"

    @property
    def truncated(self) -> bool:
        return self.cut_amount > 0

    def text(self) -> str:
        if not self.truncated:
            return self.head
        marker = (
            f"[... {self.cut_lines:,} lines ({self.cut_amount:,} {self.cut_unit}) cut from the middle of the output: "
            "the first and the last lines are shown. To see less at once: `COMMAND | head -n 50`, "
            "`| tail -n 50`, `| grep -n PATTERN`, or `COMMAND > out.txt 2>&1` and then read_file out.txt "
            "with offset and limit]"
        )
        return f"{self.head.rstrip(chr(10))}\n{marker}\n{self.tail}"


@dataclass
class BashResult:
    output: str  # what the model sees of the output (head and tail where it was long)
    exit_code: int | None
    timed_out: bool
    interrupted: bool
    truncated: bool
    confined: bool
    note: str | None = None  # said once per session where the command ran unconfined
    timeout_s: float | None = None

    def for_model(self) -> str:
        parts = [self.output.rstrip() or "(no output)"]
        if self.timed_out:
            limit = f" of {self.timeout_s:g} s" if self.timeout_s else ""
            parts.append(f"[killed: the command ran past its timeout{limit}; give a larger timeout_s, or run less]")
        elif self.interrupted:
            parts.append("[killed: interrupted by the person]")
        else:
            parts.append(f"[exit code {self.exit_code}{_exit_meaning(self.exit_code)}]")
        if self.note:
            parts.append(self.note)
        return "\n".join(parts)


def _exit_meaning(code: int | None) -> str:
    """What an exit status says beyond its number: a signal, reported by the shell as 128+N or by us as -N."""
    number = -code if code is not None and code < 0 else code - 128 if code is not None and 128 < code < 160 else None
    if number is None:
        return ""
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f": killed by signal {number}"
    limited = name in ("SIGKILL", "SIGXCPU", "SIGXFSZ")
    hint = " (often: out of memory, or past a limit on memory, file size or CPU time)" if limited else ""
    return f": killed by {name}{hint}"


def cap_output(out: BinaryIO, size: int, head_chars: int = HEAD_CHARS, tail_chars: int = TAIL_CHARS) -> CappedOutput:
    """The head and tail of a finished output file of `size` bytes, as text that is always valid UTF-8 (bytes that
    are not are shown as \\xNN)."""
    out.seek(0)
    if size <= DECODE_WHOLE_BYTES:
        return cap_text(out.read().decode("utf-8", errors="backslashreplace"), head_chars, tail_chars)
    head_bytes, tail_bytes = out.read(head_chars * 4), b""
    out.seek(size - tail_chars * 4)
    tail_bytes = out.read()
    head = _line_cut_head(head_bytes.decode("utf-8", errors="backslashreplace")[:head_chars])
    tail = _line_cut_tail(tail_bytes.decode("utf-8", errors="backslashreplace")[-tail_chars:])
    kept = len(head.encode("utf-8", errors="surrogateescape")) + len(tail.encode("utf-8", errors="surrogateescape"))
    return CappedOutput(head, tail, _count_lines(out) - head.count("\n") - tail.count("\n"), size - kept, "bytes")


def cap_text(text: str, head_chars: int = HEAD_CHARS, tail_chars: int = TAIL_CHARS) -> CappedOutput:
    """The head and tail of a text, cut at line ends where that loses little."""
    if len(text) <= head_chars + tail_chars:
        return CappedOutput(text)
    head, tail = _line_cut_head(text[:head_chars]), _line_cut_tail(text[-tail_chars:])
    middle = text[len(head) : len(text) - len(tail)]
    return CappedOutput(head, tail, middle.count("\n"), len(middle))


def _line_cut_head(text: str) -> str:
    """The head up to its last whole line, unless that would drop more than half of it (one long line)."""
    end = text.rfind("\n")
    return text[: end + 1] if end >= len(text) // 2 else text


def _line_cut_tail(text: str) -> str:
    start = text.find("\n")
    return text[start + 1 :] if 0 <= start < len(text) // 2 else text


def _count_lines(out: BinaryIO) -> int:
    out.seek(0)
    return sum(chunk.count(b"\n") for chunk in iter(lambda: out.read(1 << 20), b""))


@dataclass
class Finished:
    exit_code: int | None
    timed_out: bool
    interrupted: bool


def run_killable(argv: list[str], *, cwd: Path, env: Mapping[str, str], timeout_s: float,
                 cancel: threading.Event | None, out: BinaryIO) -> Finished:  # fmt: skip
    """Run argv in a session of its own with stdout and stderr into `out`; at the timeout or on cancel its whole
    process group is killed (and with it a sandbox and everything inside), so nothing it started runs on."""
    proc = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + timeout_s
    timed_out = interrupted = False
    while proc.poll() is None:
        if cancel is not None and cancel.is_set():
            interrupted = True
        elif time.monotonic() > deadline:
            timed_out = True
        if timed_out or interrupted:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # it ended just now
            proc.wait()
            break
        time.sleep(0.02)
    return Finished(proc.returncode, timed_out, interrupted)


def _command(command: str, work: Path, timeout_s: float, gpu: bool) -> list[str]:
    limits = Limits(memory_bytes=None if gpu else MEMORY_BYTES, processes=PROCESSES, file_bytes=FILE_BYTES,
                    cpu_seconds=math.ceil(timeout_s) + CPU_SLACK_S)  # fmt: skip
    # CUDA reserves far more address space than it uses, so a GPU shell gets no memory limit
    return confine(["bash", "-c", command], writable=[work], chdir=work, gpu=gpu,
                   env=safe_environment(home=work), limits=limits)  # fmt: skip


def _note(work: Path) -> str | None:
    if work in _noted:
        return None
    _noted.add(work)
    return f"{UNCONFINED_NOTE} ({confinement().reason})"


def run_bash(
    command: str, work: Path, timeout_s: float, cancel: threading.Event | None = None, gpu: bool = False
) -> BashResult:
    """Run a command in the workspace (confined where possible, with the GPU if `gpu`); killed at the
    timeout or on cancel (its process group, and with it the sandbox and every process inside)."""
    work = work.resolve()
    confined = confinement().works
    argv = _command(command, work, timeout_s, gpu) if confined else ["bash", "-c", command]
    with tempfile.TemporaryFile(mode="w+b") as out:
        finished = run_killable(argv, cwd=work, env=safe_environment(home=work), timeout_s=timeout_s, cancel=cancel,
                                out=out)  # fmt: skip
        capped = cap_output(out, os.fstat(out.fileno()).st_size)
    note = None if confined else _note(work)
    return BashResult(capped.text(), finished.exit_code, finished.timed_out, finished.interrupted, capped.truncated,
                      confined, note, timeout_s)  # fmt: skip
