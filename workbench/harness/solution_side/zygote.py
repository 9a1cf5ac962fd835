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
import json
import os
import shutil
import signal
import socket
import stat
import sys
import time

from . import main, prewarm
from .guard import SolutionGuard

MESSAGE_BYTES = 4096
SETTLE_S = 2.0  # how long the killed processes of an eval may take to be gone
PR_SET_DUMPABLE = 4
SKIPPED = ("/proc", "/sys", "/dev/pts")  # kernel filesystems: nothing of them is an eval's to leave


def send(ctrl: socket.socket, message: dict, fds: tuple[int, ...] = ()) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(ctrl, [data], list(fds))
    else:
        ctrl.send(data)


def receive(ctrl: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(ctrl, MESSAGE_BYTES, 4)
    if not data:
        raise EOFError
    return json.loads(data), fds


def snapshot(roots: tuple[str, ...], kept: tuple[str, ...]) -> dict[str, tuple]:
    """Every writable folder of the sandbox's own filesystem (not the host's folders in `kept`): its mode, and per
    entry its identity (device, inode, type, size, mtime, link target)."""
    found: dict[str, tuple] = {}
    for root in roots:
        for folder, dirs, _ in os.walk(root):
            # read-only mounts (the Python environment, /usr) hold nothing writable: not walked
            dirs[:] = [d for d in dirs if (path := os.path.join(folder, d)) not in SKIPPED + kept
                       and os.access(path, os.W_OK)]  # fmt: skip
            if not os.access(folder, os.W_OK) or folder in kept:
                continue
            entries = {name: _identity(os.path.join(folder, name)) for name in os.listdir(folder)}
            found[folder] = (stat.S_IMODE(os.lstat(folder).st_mode), entries)
    return found


def _identity(path: str) -> tuple:
    st = os.lstat(path)
    link = os.readlink(path) if stat.S_ISLNK(st.st_mode) else None
    size_time = (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None
    return (st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode), size_time, link)


def sweep_processes() -> str | None:
    """Kill every process of the namespace but its init and this one; None once they are gone, else why not."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + SETTLE_S
    me = os.getpid()
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        left = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]
        if not left:
            return None
        if time.monotonic() > deadline:
            return f"processes {left} outlived SIGKILL"
        time.sleep(0.005)


def sweep_files(before: dict[str, tuple]) -> str | None:
    """Put the snapshot's folders back: new entries removed, modes restored; None, or what cannot be put back."""
    for folder, (mode, entries) in before.items():
        try:
            os.chmod(folder, mode | stat.S_IWUSR | stat.S_IXUSR)  # writable again, to remove what was added
            for name in set(os.listdir(folder)) - set(entries):
                _remove(os.path.join(folder, name))
            for name, identity in entries.items():
                if _identity(os.path.join(folder, name)) != identity:
                    return f"{os.path.join(folder, name)} was replaced or changed"
            os.chmod(folder, mode)
        except OSError as exc:
            return f"{folder}: {exc}"
    return None


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o700)  # a folder made unreadable or unwritable would stop the walk and rmtree
        for folder, dirs, _ in os.walk(path):
            for d in dirs:
                os.chmod(os.path.join(folder, d), 0o700)
        shutil.rmtree(path)
    else:
        os.unlink(path)


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
    problem = prewarm.warm_guard(SolutionGuard, __import__("torch").device("cpu"))
    if problem:
        print(f"the guard's warm-up failed: {problem}", flush=True)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
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
