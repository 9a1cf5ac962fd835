"""Confinement for code the agent wrote or runs: bubblewrap with nothing of the host but what is named.

A confined process sees its writable and readable folders, the Python environment, the system's
programs and libraries, a few /etc files, a minimal /dev (plus the GPU when asked), its own /proc and
PID namespace, a private /tmp, no network, no capabilities and exactly the environment it is given.
The project root, other sessions, /root, the host's /tmp (and with it the GPU lock) are simply absent.
Standard library only: the harness runs on GPU machines that have torch and triton and nothing else.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE")
TMP_BYTES = 2 << 30  # the private /tmp is memory: bounded, so that filling it cannot take the host's RAM
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# what programs read of /etc: the loader, user and host names, time zone, certificates, Debian's alternatives
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts",
               "localtime", "os-release", "ssl", "ca-certificates", "pki", "alternatives")  # fmt: skip
# the fallback of _with_limits: `python -c _SETTER NAME VALUE ... -- COMMAND...`
_SETTER = """import os, resource, sys
end = sys.argv.index("--")
for name, value in zip(sys.argv[1:end:2], sys.argv[2:end:2]):
    resource.setrlimit(getattr(resource, "RLIMIT_" + name.upper()), (int(value), int(value)))
os.execvp(sys.argv[end + 1], sys.argv[end + 1:])
"""


@dataclass(frozen=True)
class Limits:
    """Resource limits of a confined process (setrlimit, inherited by all it starts); None: unlimited.

    `processes` (RLIMIT_NPROC) counts the user's processes host-wide and the kernel never enforces it
    for uid 0: running as root, a fork bomb is bounded only by the timeout, which kills the whole PID
    namespace."""

    memory_bytes: int | None = None  # RLIMIT_AS; None for CUDA, which reserves a huge address space
    processes: int | None = None  # RLIMIT_NPROC
    file_bytes: int | None = None  # RLIMIT_FSIZE
    cpu_seconds: int | None = None  # RLIMIT_CPU
    tmp_bytes: int = TMP_BYTES  # the size of the private /tmp (not an rlimit: bubblewrap's tmpfs --size)

    def items(self) -> list[tuple[str, int]]:
        """(prlimit option, value) for each limit that is set."""
        named = [("as", self.memory_bytes), ("nproc", self.processes), ("fsize", self.file_bytes),
                 ("cpu", self.cpu_seconds)]  # fmt: skip
        return [(name, value) for name, value in named if value is not None]


@dataclass(frozen=True)
class Confinement:
    """Whether confine() works here, with what, and if not, why not."""

    works: bool
    mechanism: str  # "bubblewrap 0.8.0", or "none"
    reason: str | None = None


def confinement() -> Confinement:
    """Whether confinement works on this machine (probed once per binary). WORKBENCH_NO_SANDBOX=1 turns
    it off; WORKBENCH_BWRAP=/path picks the bubblewrap binary."""
    if os.environ.get("WORKBENCH_NO_SANDBOX") == "1":
        return Confinement(False, "none", "WORKBENCH_NO_SANDBOX=1 turns it off")
    return _probe(_bwrap_binary())


def _bwrap_binary() -> str | None:
    chosen = os.environ.get("WORKBENCH_BWRAP")
    return chosen if chosen else shutil.which("bwrap")


@functools.cache
def _probe(binary: str | None) -> Confinement:
    if binary is None or not os.access(binary, os.X_OK):
        return Confinement(False, "none", "bubblewrap (bwrap) is not installed")
    try:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        probe = subprocess.run(
            _bwrap_command(binary, ["true"], writable=[], readable=[], chdir=Path("/"), gpu=False,
                           env={"PATH": "/usr/bin:/bin"}, limits=Limits()),
            capture_output=True, text=True, timeout=10,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        return Confinement(False, "none", f"bubblewrap could not start: {exc}")
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        return Confinement(False, "none", f"bubblewrap cannot build a sandbox here ({last})")
    return Confinement(True, version or "bubblewrap")


def unconfined_warning() -> str | None:
    """The one sentence to show (once per process) where confinement does not work; None where it does."""
    state = confinement()
    if state.works:
        return None
    return (f"warning: running UNCONFINED ({state.reason}): the agent's shell, the profiler and eval workers "
            "can read every file this user can (the expert kernels, other sessions), reach the network and "
            "see this process and its environment")  # fmt: skip


def confine(
    command: list[str],
    *,
    writable: Sequence[Path],
    readable: Sequence[Path] = (),
    chdir: Path,
    gpu: bool = False,
    env: Mapping[str, str],
    limits: Limits = Limits(),  # noqa: B008 - frozen, so one shared default is safe
    keep_fds: Sequence[int] = (),
) -> list[str]:
    """`command` wrapped to run confined; run the result with subprocess (pass_fds=keep_fds: bubblewrap
    passes inherited descriptors through). Callers check confinement().works first: this never falls
    back to running unconfined. HOME defaults to the first writable folder and must lie inside one."""
    state = confinement()
    if not state.works:
        raise RuntimeError(f"confinement does not work here: {state.reason}")
    binary = _bwrap_binary()
    assert binary is not None  # confinement() found it
    del keep_fds  # nothing to do: bubblewrap closes none of the descriptors it inherits
    return _bwrap_command(binary, command, writable=writable, readable=readable, chdir=chdir, gpu=gpu,
                          env=_with_home(env, writable), limits=limits)  # fmt: skip


def _with_home(env: Mapping[str, str], writable: Sequence[Path]) -> dict[str, str]:
    result = dict(env)
    folders = [Path(w).resolve() for w in writable]
    if "HOME" not in result and folders:
        result["HOME"] = str(folders[0])
    home = result.get("HOME")
    if home is not None and not any(Path(home).resolve().is_relative_to(f) for f in folders):
        raise ValueError(f"HOME={home} is not inside a writable folder of the sandbox")
    return result


def _bwrap_command(binary: str, command: list[str], *, writable: Sequence[Path], readable: Sequence[Path],
                   chdir: Path, gpu: bool, env: Mapping[str, str], limits: Limits) -> list[str]:  # fmt: skip
    args = [binary, "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--proc", "/proc", "--dev", "/dev",
            "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]  # fmt: skip
    args += _system_mounts()
    if gpu:
        args += _gpu_mounts()
    mounts = [(p, "--ro-bind") for p in python_environment_paths()]
    if gpu:
        mounts += [(p, "--ro-bind") for p in toolchain_paths(env)]
    mounts += [(Path(p).resolve(), "--ro-bind") for p in readable]
    mounts += [(Path(p).resolve(), "--bind") for p in writable]
    # parents before children, so that a writable folder inside a readable one stays writable
    for path, flag in sorted(mounts, key=lambda m: len(m[0].parts)):
        args += [flag, str(path), str(path)]
    args += ["--chdir", str(Path(chdir).resolve()), "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return _with_limits(limits) + args + ["--", *command]


def _with_limits(limits: Limits) -> list[str]:
    """A prefix that applies the limits and execs the rest: prlimit where present (it costs nothing),
    else the interpreter (tens of milliseconds). Set before bubblewrap starts, they hold for all inside."""
    items = limits.items()
    if not items:
        return []
    prlimit = shutil.which("prlimit")
    if prlimit is not None:
        return [prlimit, *(f"--{name}={value}" for name, value in items), "--"]
    args = [part for name, value in items for part in (name, str(value))]
    return [sys.executable, "-S", "-I", "-c", _SETTER, *args, "--"]


def _system_mounts() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for entry in ETC_ENTRIES:
        if os.path.lexists(f"/etc/{entry}"):
            args += ["--ro-bind", f"/etc/{entry}", f"/etc/{entry}"]
    return args


def _gpu_mounts() -> list[str]:
    """Every NVIDIA device node (dev-bind: usable) and /sys read-only, which CUDA reads."""
    args: list[str] = []
    for node in sorted(Path("/dev").glob("nvidia*")):
        args += ["--dev-bind", str(node), str(node)]
    return [*args, "--ro-bind", "/sys", "/sys"]


def python_environment_paths() -> list[Path]:
    """The read-only paths the interpreter and its packages need: the prefixes, the sys.path folders and
    the interpreter itself, but never the project root or a folder above it (a venv inside the project
    is fine; an editable install's finder then finds no project files, as it should)."""
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.realpath(sys.executable)]
    # sys.path, but not the folder `python -m` put first because it was the working directory (run from /tmp,
    # that would lay the host's /tmp over the private one); PYTHONPATH entries stay, they were asked for
    asked = set(filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    cwd = os.path.realpath(os.getcwd())
    candidates += [p for p in sys.path if p and os.path.isabs(p) and (os.path.realpath(p) != cwd or p in asked)]
    chosen: list[Path] = []
    for raw in candidates:
        path = Path(os.path.realpath(raw))
        if not path.exists() or _project_root().is_relative_to(path) or _under_system(path):
            continue
        if path.is_relative_to(_project_root()) and not _inside_python_environment(path):
            continue  # the project's own folders (on sys.path as a source checkout): not the environment
        if path not in chosen:
            chosen.append(path)
    return [p for p in chosen if not any(p != q and p.is_relative_to(q) for q in chosen)]


def toolchain_paths(env: Mapping[str, str]) -> list[Path]:
    """Read-only folders Triton's compiler needs on a GPU and that may live outside the system folders: the C
    compiler it builds its launcher with ($CC, else cc or gcc on the PATH, e.g. under /opt), the CUDA toolkit
    ($CUDA_HOME, $CUDA_PATH, $TRITON_PTXAS_PATH) and the driver's libraries ($LD_LIBRARY_PATH)."""
    candidates: list[str] = []
    for name in (env.get("CC"), "cc", "gcc"):
        found = shutil.which(name, path=env.get("PATH")) if name else None
        if found:
            real = Path(os.path.realpath(found))
            candidates.append(str(real.parent.parent if real.parent.name == "bin" else real.parent))
    for key in ("CUDA_HOME", "CUDA_PATH", "TRITON_PTXAS_PATH", "TRITON_CUDA_DIRS"):
        if env.get(key):
            candidates.append(env[key] if os.path.isdir(env[key]) else os.path.dirname(env[key]))
    candidates += env.get("LD_LIBRARY_PATH", "").split(os.pathsep)
    chosen: list[Path] = []
    for raw in candidates:
        if not raw or not os.path.isabs(raw):
            continue
        path = Path(os.path.realpath(raw))
        if path.is_dir() and not _under_system(path) and not _project_root().is_relative_to(path):
            if not path.is_relative_to(_project_root()) and not path.is_relative_to(Path.home()) and path not in chosen:
                chosen.append(path)
    return chosen


@functools.cache
def _project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def _under_system(path: Path) -> bool:
    """Already visible through the system mounts."""
    return any(path.is_relative_to(os.path.realpath(d)) for d in SYSTEM_DIRS if os.path.isdir(d))


def _inside_python_environment(path: Path) -> bool:
    prefixes = {Path(os.path.realpath(p)) for p in (sys.prefix, sys.exec_prefix)}
    return any(path.is_relative_to(p) and p != _project_root() for p in prefixes)


def without_secrets(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without API keys, tokens, passwords or other secrets (judged by the variable's name)."""
    return {k: v for k, v in env.items() if not any(m in k.upper() for m in SECRET_MARKERS)}


def safe_environment(base: Mapping[str, str] | None = None, home: Path | None = None) -> dict[str, str]:
    """The environment for a confined process: `base` (default: this process's) without secrets, TMPDIR
    and the working folders dropped (the sandbox has its own /tmp), HOME set to `home` when given."""
    env = without_secrets(os.environ if base is None else base)
    for stale in ("TMPDIR", "PWD", "OLDPWD"):  # host paths the sandbox does not have
        env.pop(stale, None)
    if home is not None:
        env["HOME"] = str(Path(home).resolve())
    return env
