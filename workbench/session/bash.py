"""The agent's shell: runs in the workspace, with a timeout, capped output and no secrets.

Where confinement works, the command sees the workspace (read-write), the Python environment, the
system's programs, a private /tmp and (in CUDA sessions) the GPU, and nothing else of the host: no
network, its own PID namespace, limits on memory, file size and CPU time. Where it does not, the command
runs unconfined and the first result of the session says so, plainly.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.harness.sandbox import Limits, confine, confinement, safe_environment

OUTPUT_CAP = 16_000  # characters of output the model sees
UNCONFINED_NOTE = (
    "note: this command ran UNCONFINED (no sandbox): it can read every file on this machine, "
    "reach the network and see other processes; this note is shown once per session"
)
MEMORY_BYTES, FILE_BYTES, PROCESSES = 8 << 30, 1 << 30, 2048
CPU_SLACK_S = 5  # CPU time allowed past the wall-clock timeout (several cores can run at once)
_noted: set[Path] = set()  # workspaces that were told they run unconfined: one session, one note


@dataclass
class BashResult:
    output: str
    exit_code: int | None
    timed_out: bool
    interrupted: bool
    truncated: bool
    confined: bool
    note: str | None = None  # said once per session where the command ran unconfined

    def for_model(self) -> str:
        parts = [self.output.rstrip()]
        if self.truncated:
            parts.append(f"[output truncated to the last {OUTPUT_CAP} characters]")
        if self.timed_out:
            parts.append("[killed: the command ran past its timeout]")
        elif self.interrupted:
            parts.append("[killed: interrupted by the person]")
        else:
            parts.append(f"[exit code {self.exit_code}]")
        if self.note:
            parts.append(self.note)
        return "\n".join(p for p in parts if p)


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
        proc = subprocess.Popen(
            argv, cwd=work, env=safe_environment(home=work), stdin=subprocess.DEVNULL,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout_s
        timed_out = interrupted = False
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                interrupted = True
            elif time.monotonic() > deadline:
                timed_out = True
            if timed_out or interrupted:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.02)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    truncated = len(text) > OUTPUT_CAP
    if truncated:
        text = text[-OUTPUT_CAP:]
    note = None if confined else _note(work)
    return BashResult(text, proc.returncode, timed_out, interrupted, truncated, confined, note)
