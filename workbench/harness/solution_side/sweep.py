"""What the zygote (zygote.py) and the checker's handle on it (zygote_handle.py) share, standard library only: the
control messages (one JSON object a datagram, descriptors beside it), and the sweep that puts a sandbox back as it
was between two evals, and the removal of whatever an eval left, whatever modes it set.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import time

MESSAGE_BYTES = 4096
SETTLE_S = 2.0  # how long the killed processes of an eval may take to be gone
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
                remove(os.path.join(folder, name))
            for name, identity in entries.items():
                if _identity(os.path.join(folder, name)) != identity:
                    return f"{os.path.join(folder, name)} was replaced or changed"
            os.chmod(folder, mode)
        except OSError as exc:
            return f"{folder}: {exc}"
    return None


def remove(path: str) -> None:
    """`path` gone: a file or link, or a folder with everything in it, whatever modes an eval set on them."""
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o700)  # a folder made unreadable or unwritable would stop the walk and rmtree
        for folder, dirs, _ in os.walk(path):
            for d in dirs:
                os.chmod(os.path.join(folder, d), 0o700)
        shutil.rmtree(path)
    else:
        os.unlink(path)
