"""The checker's handle on one solution worker: start it confined, talk to it with deadlines, kill it.

The worker gets one end of a socketpair and nothing else of the checker: not its result pipe, not the GPU lock,
not the task's reference. Its stdout and stderr go to a log file that is read only as text for an error message.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from workbench.harness import sandbox
from workbench.harness.hang_report import dump_after, read_hung_at
from workbench.harness.owned_tmp import owned_dir
from workbench.harness.solution_side import wire
from workbench.harness.zygote_handle import ForkedProcess, Zygote, ZygoteGone

PACKAGE = Path(__file__).resolve().parent / "solution_side"


class WorkerGone(RuntimeError):
    """The worker died, timed out or broke the protocol; `reason` says which, for the workload in flight."""

    def __init__(self, reason: str, timed_out: bool = False, hung_at: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out
        self.hung_at = hung_at  # a timed-out worker's innermost frames, from its own stack dump ("" when none)

    def where(self) -> str:
        """What to add to a timeout's message: where the worker was, when it said."""
        return f"; it was at {self.hung_at}" if self.hung_at else ""


@dataclass(frozen=True)
class WorkerPlan:
    """What a worker may see, fixed when it starts (before any eval is known, for a spare started ahead). Nothing
    of a task is in it: the eval's solution files and its task's inputs.py are copied into the worker's own slot
    when the eval begins, so a spare serves the next eval whatever its task or folder. On CUDA the worker also
    writes the Triton cache of the eval's workspace or folder; the interpreter compiles nothing, so there a
    worker gets an empty cache of its own (a spare then matches any interpret eval)."""

    mode: str
    triton_cache: Path | None  # None: a private one in the worker's home
    confine: bool


class Worker:
    def __init__(self, plan: WorkerPlan, zygote: Zygote | None = None) -> None:
        """A worker started confined as `plan` says, or forked by `zygote` (an interpret-mode plan's, see
        zygote_handle.py): the same protocol either way."""
        self.plan = plan
        self.zygote = zygote
        self.proc: subprocess.Popen[bytes] | ForkedProcess
        self.ready = False
        self._starting: threading.Thread | None = None
        self._start_failure: WorkerGone | None = None
        if zygote is not None:
            self._fork(zygote)
            return
        self.home = owned_dir("workbench-worker-")  # a killed checker's: removed later
        shutil.copytree(PACKAGE, self.home / "solution_side", ignore=shutil.ignore_patterns("__pycache__"))
        self.solution_dir, self.task_dir, self.work = self.home / "solution", self.home / "task", self.home / "work"
        self.triton_cache = plan.triton_cache or self.home / "triton-cache"
        for folder in (self.solution_dir, self.task_dir, self.work, self.triton_cache):
            folder.mkdir(exist_ok=True)
        self.log_path = self.home / "worker.log"
        ours, theirs = socket.socketpair()
        self.sock = ours
        # outputs cross through memory both map, else over the socket
        self.area = wire.SharedArea.create(wire.AREA_BYTES if plan.mode == "cuda" else wire.INTERPRET_AREA_BYTES)
        passed = [theirs.fileno()] + ([self.area.fd] if self.area else [])
        env = sandbox.safe_environment(home=self.work)
        env.update(PYTHONPATH=str(self.home), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
                   TRITON_CACHE_DIR=str(self.triton_cache))  # fmt: skip
        env.pop("TRITON_INTERPRET", None)
        if plan.mode == "interpret":
            env["TRITON_INTERPRET"] = "1"
        command = [sys.executable, "-m", "solution_side.main", str(theirs.fileno()), plan.mode]
        command += [str(self.area.fd), str(self.area.size)] if self.area else []
        if plan.confine:
            readable = [self.home / "solution_side", self.solution_dir, self.task_dir]
            command = sandbox.confine(
                command, writable=[self.work, self.triton_cache], readable=readable, chdir=self.work,
                gpu=plan.mode == "cuda", env=env, keep_fds=passed, limits=worker_limits(plan.mode),
            )  # fmt: skip
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.work, env=env,
                start_new_session=True, pass_fds=tuple(passed),
            )  # fmt: skip
        theirs.close()

    def _fork(self, zygote: Zygote) -> None:
        self.home, self.solution_dir, self.task_dir = zygote.home, zygote.solution_dir, zygote.task_dir
        self.work, self.triton_cache = zygote.work, zygote.triton_cache
        ours, theirs = socket.socketpair()
        self.sock = ours
        self.area = wire.SharedArea.create(wire.INTERPRET_AREA_BYTES)
        try:
            self.log_path = zygote.fork(theirs.fileno(), self.area.fd if self.area else None,
                                        self.area.size if self.area else None)  # fmt: skip
        except ZygoteGone as gone:
            ours.close()
            if self.area is not None:
                self.area.close()
            raise WorkerGone(str(gone)) from None
        finally:
            theirs.close()
        self.proc = ForkedProcess(zygote)

    def wait_ready(self, timeout_s: float) -> None:
        """Until the worker has imported torch and Triton and set up its device (the slow part of a start)."""
        if self._starting is not None:
            self._starting.join(timeout_s)
            if self._starting.is_alive():
                self.kill()
                self._starting.join()
            self._starting = None
        if self._start_failure is not None:
            raise self._start_failure
        if not self.ready:
            self._reply(timeout_s)
            self.ready = True

    def start_in_background(self, timeout_s: float, then: Callable[[], None]) -> None:
        """Wait for the start in a thread (then call `then`), so that the checker takes the next eval meanwhile;
        wait_ready() joins it."""

        def wait() -> None:
            try:
                self._reply(timeout_s)
                self.ready = True
            except WorkerGone as gone:
                self._start_failure = gone
            finally:
                then()

        self._starting = threading.Thread(target=wait, name="worker-start", daemon=True)
        self._starting.start()

    def begin(self, solution: Path, inputs: Path, config: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Give the worker one eval's solution (solution.py and the .py files beside it), its task's inputs.py (both
        copied into its slot, read-only to it) and configuration; the reply comes once the task's inputs and the
        defences are in place."""
        self.wait_ready(timeout_s)
        for source in solution.parent.glob("*.py"):
            shutil.copyfile(source, self.solution_dir / source.name)
        shutil.copyfile(inputs, self.task_dir / "inputs.py")
        audit = {**config.get("audit", {}), "worker_dirs": [str(self.home / "solution_side")],
                 "readable": [str(self.solution_dir), str(self.task_dir)],
                 "writable": [str(self.work), str(self.triton_cache), "/tmp"],
                 "library_writable": [str(self.triton_cache)]}  # fmt: skip
        wire.send(self.sock, {**config, "audit": audit, "inputs": str(self.task_dir / "inputs.py"),
                              "solution": str(self.solution_dir / solution.name)})  # fmt: skip
        reply, _ = self._reply(timeout_s)
        return reply

    def request(
        self, header: dict[str, Any], timeout_s: float, device: torch.device | None = None
    ) -> tuple[dict[str, Any], list[torch.Tensor]]:
        after = dump_after(timeout_s)
        try:
            wire.send(self.sock, {**header, "dump_after_s": after} if after else header)
        except OSError:
            raise self._gone() from None
        return self._reply(timeout_s, device)

    def _reply(self, timeout_s: float, device: torch.device | None = None) -> tuple[dict[str, Any], list[torch.Tensor]]:
        self.sock.settimeout(max(timeout_s, 0.001))
        try:
            return wire.receive(self.sock, device, self.area)
        except TimeoutError:
            self.kill()
            raise WorkerGone(f"timed out after {timeout_s:g} s (killed)", timed_out=True,
                             hung_at=read_hung_at(self.log_path, self.solution_dir.resolve())) from None  # fmt: skip
        except (wire.PeerClosed, OSError):
            raise self._gone() from None
        except wire.ProtocolError as exc:
            self.kill()
            raise WorkerGone(f"the solution's process broke the protocol ({exc}); killed") from None

    def _gone(self) -> WorkerGone:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
        # a forked worker's status is its own (from waitpid), not a bwrap's 128 + N
        return WorkerGone(describe_exit(self.proc.returncode, self.tail(), self.plan.confine and not self.zygote))

    def kill(self) -> None:
        if isinstance(self.proc, ForkedProcess):
            self.proc.kill()
        elif self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def close(self) -> None:
        """Ask a ready worker to quit (it frees its device memory in order); one still starting cannot read the
        request until its imports are done and holds nothing yet, so it is killed at once. A spare started for an
        eval of another task or folder is closed so, and costs the next eval no wait."""
        try:
            wire.send(self.sock, {"op": "quit"})
        except OSError:
            pass
        deadline = time.monotonic() + (2 if self.ready else 0)
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        self.kill()
        if self._starting is not None:  # its read of the socket ends with the process
            self._starting.join(5)
        self.sock.close()
        if self.area is not None:
            self.area.close()
            self.area = None
        if self.zygote is None:
            shutil.rmtree(self.home, ignore_errors=True)
        else:  # the zygote's slot: it was swept and emptied when the zygote reported the exit
            self.log_path.unlink(missing_ok=True)

    def tail(self, lines: int = 6) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(text[-lines:])[-1500:]


def worker_limits(mode: str) -> sandbox.Limits:
    """A worker may write files of up to 4 GiB (Triton's cache, the solution's scratch) and use an hour of CPU (the
    interpreter is slow); its address space is bounded only in interpret mode, since CUDA reserves terabytes of it."""
    memory = 32 << 30 if mode == "interpret" else None
    return sandbox.Limits(memory_bytes=memory, processes=1024, file_bytes=4 << 30, cpu_seconds=3600)


def describe_exit(returncode: int | None, tail: str, confined: bool = False) -> str:
    """Why the worker ended. Under bubblewrap a signal shows as the shell's 128 + N (bwrap is the process we wait
    for, and it exits so when its child is killed)."""
    if confined and returncode is not None and 128 < returncode < 128 + 65:
        returncode = 128 - returncode
    if returncode is not None and returncode < 0:
        name = signal.Signals(-returncode).name
        what = {"SIGSEGV": "segmentation fault", "SIGABRT": "aborted", "SIGKILL": "killed (out of memory?)",
                "SIGBUS": "bus error", "SIGFPE": "arithmetic fault"}.get(name, "killed")  # fmt: skip
        message = f"the solution's process died: {name} ({what})"
    else:
        message = f"the solution's process exited with status {returncode}"
    return message + (f"; last output: {tail}" if tail else "")
