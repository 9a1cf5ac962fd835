"""The checker's handle on a zygote (solution_side/zygote.py): one confined process that imported torch and Triton
once and forks a worker per interpret-mode eval, where a fresh worker's start (~2 s of CPU) cost more than the eval.

A forked worker is driven exactly as a started one (worker_handle.Worker: its own socket and shared area, passed to
the zygote over SCM_RIGHTS, and its own log). What the checker relies on: after a worker ends, the zygote reports
its exit status and whether the sandbox is clean again (no process of the eval left, the sandbox's own writable
places as they were); only then does the checker empty the slot's host folders and fork the next worker. A zygote
that is gone, slow to answer, or unclean is killed with its whole sandbox and the next eval gets a new one.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from workbench.harness import sandbox
from workbench.harness.owned_tmp import owned_dir
from workbench.harness.solution_side.sweep import MESSAGE_BYTES, remove, send

PACKAGE = Path(__file__).resolve().parent / "solution_side"
ANSWER_S = 10.0  # a fork or a sweep takes milliseconds; a zygote this slow is stopped or broken


class ZygoteGone(RuntimeError):
    pass


HOME_PREFIX = "workbench-zygote-"


class Zygote:
    def __init__(self, limits: sandbox.Limits) -> None:
        self.home = owned_dir(HOME_PREFIX)  # a killed checker's is removed by a later one
        shutil.copytree(PACKAGE, self.home / "solution_side", ignore=shutil.ignore_patterns("__pycache__"))
        self.solution_dir, self.task_dir, self.work = self.home / "solution", self.home / "task", self.home / "work"
        self.triton_cache = self.home / "triton-cache"
        for folder in (self.solution_dir, self.task_dir, self.work, self.triton_cache):
            folder.mkdir()
        self.log_path = self.home / "zygote.log"
        self._logs = itertools.count()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ctrl = ours
        env = sandbox.safe_environment(home=self.work)
        env.update(PYTHONPATH=str(self.home), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
                   TRITON_CACHE_DIR=str(self.triton_cache), TRITON_INTERPRET="1",
                   # one thread: numpy's OpenBLAS starts a pool at import, and a process that forks with a second
                   # thread alive may hand the child a lock that thread held (the zygote refuses to fork so)
                   OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # fmt: skip
        kept = [str(self.work), str(self.triton_cache)]  # host folders: the checker empties them
        command = [sys.executable, "-m", "solution_side.zygote", str(theirs.fileno()), *kept]
        command = sandbox.confine(
            command, writable=[self.work, self.triton_cache],
            readable=[self.home / "solution_side", self.solution_dir, self.task_dir], chdir=self.work, env=env,
            keep_fds=[theirs.fileno()], limits=limits,
        )  # fmt: skip
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.work, env=env,
                start_new_session=True, pass_fds=(theirs.fileno(),),
            )  # fmt: skip
        theirs.close()
        self.ready = False
        self.busy = False  # a forked worker has not been reported clean yet
        self.gone: str | None = None

    def usable(self) -> bool:
        return self.gone is None and not self.busy and self.proc.poll() is None

    def wait_ready(self, timeout_s: float) -> None:
        if not self.ready:
            message = self._receive(timeout_s)
            if not message.get("ready"):
                self._fail(f"said {message!r} instead of ready")
            self.ready = True

    def fork(self, sock_fd: int, area_fd: int | None, area_size: int | None) -> Path:
        """A worker on the given socket (and area); returns the log file its output goes to."""
        log_path = self.home / f"worker-{next(self._logs)}.log"
        with open(log_path, "w") as log:
            fds = [sock_fd, log.fileno()] + ([area_fd] if area_fd is not None else [])
            try:
                send(self.ctrl, {"op": "fork", "area_size": area_size}, tuple(fds))
            except OSError as exc:
                self._fail(f"could not be asked to fork ({exc})")
        if not self._receive(ANSWER_S).get("forked"):
            self._fail("did not fork")
        self.busy = True
        return log_path

    def exit_status(self, timeout_s: float) -> int | None:
        """The forked worker's exit status once it ended and the sandbox was swept (None: not yet). An unclean
        sandbox, or a zygote gone meanwhile, is killed; the status is then what the zygote said, or SIGKILL's."""
        try:
            message = self._receive(timeout_s, quiet_timeout=True)
        except TimeoutError:
            return None
        except ZygoteGone:
            return -signal.SIGKILL
        self.busy = False
        if not message.get("clean"):
            self._fail(f"could not clean up after the eval: {message.get('problem')}")
        else:
            for folder in (self.solution_dir, self.task_dir, self.work, self.triton_cache):
                empty(folder)
        code = message.get("exited")
        return code if type(code) is int else -signal.SIGKILL

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.gone = self.gone or "killed"

    def close(self) -> None:
        if self.usable():
            try:
                send(self.ctrl, {"op": "quit"})
            except OSError:
                pass
            deadline = time.monotonic() + 2
            while self.proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
        self.kill()
        self.ctrl.close()
        shutil.rmtree(self.home, ignore_errors=True)

    def _receive(self, timeout_s: float, quiet_timeout: bool = False) -> dict[str, Any]:
        if self.gone is not None:
            raise ZygoteGone(self.gone)
        self.ctrl.settimeout(timeout_s if timeout_s > 0 else 0.0)  # 0: a look, never a wait
        try:
            data, fds, _, _ = socket.recv_fds(self.ctrl, MESSAGE_BYTES, 1)
        except (BlockingIOError, TimeoutError):
            if quiet_timeout:
                raise TimeoutError from None
            self._fail(f"did not answer in {timeout_s:g} s")
        except OSError as exc:
            self._fail(f"broke its socket ({exc})")
        for fd in fds:  # it sends none; a descriptor here is not ours to keep
            os.close(fd)
        if not data:
            self._fail(f"ended ({self.tail()})")
        try:
            message = json.loads(data)
        except ValueError:
            self._fail("sent garbage")
        if not isinstance(message, dict):
            self._fail("sent garbage")
        return message

    def _fail(self, why: str) -> Any:
        self.kill()
        self.gone = f"the worker's zygote {why}"
        raise ZygoteGone(self.gone)

    def tail(self) -> str:
        try:
            return " | ".join(self.log_path.read_text(errors="replace").strip().splitlines()[-4:])[-800:]
        except OSError:
            return ""


class ForkedProcess:
    """What the worker handle needs of a process (poll, wait, returncode) for a worker the zygote forked."""

    pid = None

    def __init__(self, zygote: Zygote) -> None:
        self.zygote = zygote
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.exit_status(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = ANSWER_S if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired("forked worker", timeout or 0)
            self.returncode = self.zygote.exit_status(min(left, 0.5))
        return self.returncode

    def kill(self) -> None:
        """One worker cannot be killed alone (its host PID is the sandbox's to know): the sandbox goes with it."""
        if self.poll() is None:
            self.zygote.kill()
            self.returncode = -signal.SIGKILL


def empty(folder: Path) -> None:
    """Everything in `folder` removed, whatever modes the eval left on it."""
    for entry in list(folder.iterdir()) if folder.exists() else []:
        remove(str(entry))
