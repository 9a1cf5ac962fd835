"""Bubblewrap confinement for code an agent wrote: the file system read-only but for the folders
named, no network. Used by the agent's bash tool and for evals run from a session."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path


@functools.cache
def bubblewrap_works() -> bool:
    """Whether bwrap exists and can build a sandbox on this machine (user namespaces allowed)."""
    if os.environ.get("WORKBENCH_NO_SANDBOX") == "1" or shutil.which("bwrap") is None:
        return False
    try:
        probe = subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "true"],
            capture_output=True, timeout=10,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def confined(command: list[str], writable: list[Path], chdir: Path, private_tmp: bool = False) -> list[str]:
    """`command` wrapped so that only the `writable` folders (and /tmp) can be written, without network."""
    prefix = ["bwrap", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"]
    prefix += ["--tmpfs", "/tmp"] if private_tmp else ["--bind", "/tmp", "/tmp"]
    for folder in writable:
        prefix += ["--bind", str(folder), str(folder)]
    prefix += ["--unshare-net", "--die-with-parent", "--chdir", str(chdir)]
    return prefix + command
