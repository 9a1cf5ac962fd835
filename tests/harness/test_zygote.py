"""The zygote (solution_side/zygote.py and sweep.py, zygote_handle.py): interpret-mode workers are forked from one
confined process, and nothing an eval leaves in the sandbox reaches the next eval.

The sweep is tested where it runs, inside a real sandbox, against what an eval could leave with the audit hook out of
the way (files in every writable place, folders made unwritable, a process in a session of its own, a symlink of /
replaced); the harness path is tested end to end: an eval that plants what its audit policy lets it, then one that
looks for it from a worker forked by the same zygote.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import FIXTURE_ROOT

from workbench.harness import EvalOptions, evaluate, sandbox
from workbench.harness.result import StaticResult
from workbench.tasks import load_task

pytestmark = pytest.mark.skipif(not sandbox.confinement().works, reason="needs bubblewrap")
PACKAGE = Path(__file__).resolve().parents[2] / "workbench" / "harness"

SWEEP = textwrap.dedent(
    """
    import json, os, subprocess, sys, time
    from solution_side import sweep as zygote
    kept = (sys.argv[1],)
    before = zygote.snapshot(("/",), kept)
    report = {"walked": sorted(before), "tmp mode before": oct(os.stat("/tmp").st_mode & 0o7777)}
    places = ("/planted", "/tmp/planted", "/dev/shm/planted", "/dev/planted", "/etc/planted", sys.argv[1] + "/kept")
    for place in places:
        open(place, "w").write("x")
    os.makedirs("/tmp/locked/inner")
    open("/tmp/locked/inner/f", "w").write("x")
    os.chmod("/tmp/locked/inner", 0)
    os.chmod("/tmp/locked", 0)
    os.chmod("/tmp", 0o500)
    if os.fork() == 0:  # a process in a session of its own that outlives its parent
        os.setsid()
        if os.fork() == 0:
            time.sleep(60)
        os._exit(0)
    time.sleep(0.2)
    report["processes before"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    report["process sweep"] = zygote.sweep_processes()
    report["processes after"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    report["file sweep"] = zygote.sweep_files(before)
    report["left"] = [p for p in ("/planted", "/tmp/planted", "/dev/shm/planted", "/dev/planted", "/etc/planted",
                                  "/tmp/locked") if os.path.lexists(p)]
    report["host folder kept"] = os.path.exists(sys.argv[1] + "/kept")
    report["tmp mode"] = oct(os.stat("/tmp").st_mode & 0o7777)
    report["same after sweep"] = zygote.snapshot(("/",), kept) == before
    report["/dev/fd was a symlink"] = os.path.islink("/dev/fd")  # bubblewrap's, on the sandbox's own /dev
    os.unlink("/dev/fd")
    os.symlink("/tmp", "/dev/fd")
    report["replaced symlink"] = zygote.sweep_files(before)
    print("REPORT " + json.dumps(report))
    """
)


def test_the_sweep_leaves_the_sandbox_as_it_was_and_refuses_what_it_cannot_restore(tmp_path):
    home = tmp_path / "zygote-test"
    home.mkdir()
    kept = home / "work"
    kept.mkdir()
    env = sandbox.safe_environment(home=kept)
    env["PYTHONPATH"] = str(PACKAGE)  # inside: only its solution_side is mounted
    command = sandbox.confine([sys.executable, "-c", SWEEP, str(kept)], writable=[kept],
                              readable=[PACKAGE / "solution_side"], chdir=kept, env=env)  # fmt: skip
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT ")]
    assert lines, proc.stderr[-2000:]
    report = json.loads(lines[-1][len("REPORT ") :])
    assert {"/", "/tmp", "/dev", "/dev/shm", "/etc"} <= set(report["walked"]) and str(kept) not in report["walked"]
    assert len(report["processes before"]) > 2 and report["process sweep"] is None
    assert len(report["processes after"]) == 2  # bubblewrap's init and this process
    assert report["file sweep"] is None and report["left"] == []
    assert report["tmp mode"] == report["tmp mode before"]  # it was made 0o500
    assert report["host folder kept"]  # the host's folders are the checker's to empty, not the sweep's
    assert report["same after sweep"]
    assert report["/dev/fd was a symlink"]
    assert report["replaced symlink"] and "was replaced or changed" in report["replaced symlink"]


PLANTER = """
import os
import torch
import triton
import triton.language as tl

for place in ("/tmp/planted", os.path.expanduser("~/planted")):  # what the audit policy lets a solution write
    try:
        open(place, "w").write("x")
    except Exception:
        pass

@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out
"""

FINDER = (
    PLANTER.split("for place in")[0]
    + """
found = [p for p in ("/tmp/planted", os.path.expanduser("~/planted")) if os.path.exists(p)]
if found or "/workbench-zygote-" not in __file__:  # (the audit hook keeps a solution out of /proc)
    raise RuntimeError(f"LEAKED: left {found}, in {__file__}")


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out
"""
)


def test_the_next_eval_forked_by_the_same_zygote_finds_nothing_the_last_one_left(tmp_path, monkeypatch):
    import workbench.harness.runner as runner

    monkeypatch.setattr(runner, "check_source", lambda source, forbidden=(), helper=False: StaticResult(ok=True))
    task = load_task("scale_add", FIXTURE_ROOT)
    options = EvalOptions(mode="interpret", seeds=1, timeout_s=60)
    for name, source in (("planter", PLANTER), ("finder", FINDER), ("finder_again", FINDER)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "solution.py").write_text(source)
        result = evaluate(task, folder / "solution.py", options)
        assert result.correct, (name, result.error, [w.summary() for w in result.workloads])


NOT_DUMPABLE = textwrap.dedent(
    """
    import ctypes, json, os, socket
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0, as the zygote sets itself before its first fork
    control, _ = socket.socketpair()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the forked worker, looking for the zygote's control socket and memory
        parent, out = os.getppid(), {}
        for n in os.listdir(f"/proc/{parent}/fd"):
            for what, reach in (("readlink", os.readlink), ("open", lambda p: os.close(os.open(p, os.O_RDONLY)))):
                try:
                    reach(f"/proc/{parent}/fd/{n}")
                    out[f"{what} fd {n}"] = "reached"
                except OSError:
                    pass
        for name in ("mem", "environ", "maps"):
            try:
                open(f"/proc/{parent}/{name}", "rb").read(1)
                out[name] = "reached"
            except OSError:
                pass
        pidfd = libc.syscall(434, parent, 0)  # pidfd_open
        if libc.syscall(438, pidfd, control.fileno(), 0) >= 0:  # pidfd_getfd
            out["pidfd_getfd"] = "reached"
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    print("REPORT " + os.read(r, 65536).decode())
    """
)


def test_a_forked_worker_cannot_reach_the_not_dumpable_zygotes_descriptors_or_memory(tmp_path):
    env = sandbox.safe_environment(home=tmp_path)
    command = sandbox.confine([sys.executable, "-c", NOT_DUMPABLE], writable=[tmp_path], chdir=tmp_path, env=env)
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT ")]
    assert lines, proc.stderr[-2000:]
    assert json.loads(lines[-1][len("REPORT ") :]) == {}  # (how many descriptors it has can be listed, no more)


def test_the_zygote_is_single_threaded_when_it_forks():
    """A fork copies the calling thread alone: a lock another thread held (numpy's OpenBLAS pool starts one at
    import) stays held in the child forever."""
    import os

    from workbench.harness.worker_handle import worker_limits
    from workbench.harness.zygote_handle import Zygote

    zygote = Zygote(worker_limits("interpret"))
    try:
        zygote.wait_ready(120)
        found = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = (Path("/proc") / pid / "cmdline").read_bytes().split(b"\0")
                # this zygote (its home is in its argv), not bwrap, nor another test's (nor its busy forked workers)
                if str(zygote.work).encode() in argv and not argv[0].endswith(b"bwrap"):
                    found[pid] = len(os.listdir(Path("/proc") / pid / "task"))
            except OSError:
                continue
        assert found and set(found.values()) == {1}, found
    finally:
        zygote.close()
