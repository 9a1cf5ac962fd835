"""The agent's shell: runs in the workspace, with a timeout, capped output and no secrets.

Where bubblewrap works, the command runs with the whole file system read-only except the workspace
and a private /tmp, no network, and its own process tree; where it does not, the command runs
unconfined and every result says so.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.harness.runner import SECRET_MARKERS
from workbench.harness.sandbox import bubblewrap_works, confined

OUTPUT_CAP = 16_000  # characters of output the model sees
UNCONFINED_NOTE = "note: bubblewrap is not available here, so this command ran unconfined (not sandboxed)"


@dataclass
class BashResult:
    output: str
    exit_code: int | None
    timed_out: bool
    interrupted: bool
    truncated: bool
    confined: bool

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
        if not self.confined:
            parts.append(UNCONFINED_NOTE)
        return "\n".join(p for p in parts if p)


def safe_environment() -> dict[str, str]:
    """The environment without API keys, tokens, passwords or other secrets."""
    return {k: v for k, v in os.environ.items() if not any(m in k.upper() for m in SECRET_MARKERS)}


def _command(command: str, work: Path, confined_run: bool) -> list[str]:
    if not confined_run:
        return ["bash", "-c", command]
    return confined(["--unshare-pid", "bash", "-c", command], [work], work, private_tmp=True)


def run_bash(command: str, work: Path, timeout_s: float, cancel: threading.Event | None = None) -> BashResult:
    """Run a command in the workspace; killed (its whole process group) at the timeout or on cancel."""
    confined = bubblewrap_works()
    env = safe_environment()
    env["HOME"] = str(work)
    with tempfile.TemporaryFile(mode="w+b") as out:
        proc = subprocess.Popen(
            _command(command, work, confined), cwd=work, env=env, stdin=subprocess.DEVNULL,
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
    return BashResult(text, proc.returncode, timed_out, interrupted, truncated, confined)
