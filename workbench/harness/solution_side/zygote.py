"""A worker that forks workers: `python -m solution_side.zygote CTRL_FD`, inside the same sandbox a worker gets.

Starting a worker costs ~2 s of CPU (torch, Triton, the guard's first op), more than most interpret-mode evals take.
This process pays it once, then forks one worker per eval: the child runs `main.serve` over the socket and shared
area the checker passed it (SCM_RIGHTS), exactly as a freshly started worker would.

It holds nothing that decides a verdict, and it never runs solution code: a child closes the control socket before
anything of the eval is loaded. What a child could leave for the next eval is swept before the checker is told the
slot is clean: every other process of the sandbox's PID namespace is killed (and waited for), and every writable
place of the sandbox's own filesystem is put back as it was at start: new entries removed, modes restored; an entry
that was replaced or changed (a symlink of /, a file of /etc) cannot be put back, and this process then exits, so
that the checker starts a new sandbox. The checker empties the slot's host folders (work, Triton cache, solution,
task) itself. The process is not dumpable, so a child cannot read its memory or descriptors through /proc or
ptrace (the sandbox has no capabilities). Interpret mode only: CUDA cannot be used across a fork.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys

import torch

from . import main, prewarm
from .guard import SolutionGuard
from .sweep import receive, send, snapshot, sweep_files, sweep_processes

PR_SET_DUMPABLE = 4


def child(ctrl: socket.socket, fds: list[int], area_size: int | None) -> None:
    """The forked worker: nothing of the zygote's control reaches the eval."""
    ctrl.close()
    sock_fd, log_fd, *area_fd = fds
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    argv = [str(sock_fd), "interpret"] + ([str(area_fd[0]), str(area_size)] if area_fd and area_size else [])
    main.main(argv)  # ends the process (os._exit)


def serve(ctrl: socket.socket, kept: tuple[str, ...]) -> int:
    problem = prewarm.warm_guard(SolutionGuard, torch.device("cpu"))
    if problem:
        print(f"the guard's warm-up failed: {problem}", flush=True)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:  # a fork copies one thread, and any lock another one held: the child could hang on it
        print(f"the zygote has {threads} threads; it forks only single-threaded", flush=True)
        return 1
    before = snapshot(("/",), kept)
    send(ctrl, {"ready": True})
    while True:
        try:
            request, fds = receive(ctrl)
        except (EOFError, ConnectionError):
            return 0
        if request.get("op") != "fork" or len(fds) < 2:
            for fd in fds:
                os.close(fd)
            return 0 if request.get("op") == "quit" else 1
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(ctrl, fds, request.get("area_size"))
        for fd in fds:
            os.close(fd)
        send(ctrl, {"forked": True})
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        problem = sweep_processes() or sweep_files(before)
        send(ctrl, {"exited": code, "clean": problem is None, "problem": problem})
        if problem:
            print(f"the sandbox cannot be reused: {problem}", flush=True)
            return 1


if __name__ == "__main__":
    control = socket.socket(fileno=int(sys.argv[1]))
    sys.exit(serve(control, tuple(sys.argv[2:])))
