"""Confinement: what a confined process can see, reach and use of the host, and what it cannot."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import REPO

from workbench.harness import sandbox
from workbench.harness.sandbox import Limits, confine, confinement, safe_environment, unconfined_warning
from workbench.session.bash import UNCONFINED_NOTE, run_bash

needs_sandbox = pytest.mark.skipif(not confinement().works, reason=f"no confinement here: {confinement().reason}")
EXPERT = REPO / "guidance" / "rmsnorm_residual" / "expert.py"


NO_LIMITS = Limits()


def run(tmp_path: Path, code: str, *, limits: Limits = NO_LIMITS, env: dict[str, str] | None = None,
        timeout: float = 60, **kwargs: object) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`python -c code` confined, with tmp_path/w writable; stdout and stderr captured."""
    work = tmp_path / "w"
    work.mkdir(exist_ok=True)
    command = confine([sys.executable, "-c", code], writable=[work], chdir=work, limits=limits,
                      env=safe_environment(home=work) if env is None else env, **kwargs)  # type: ignore[arg-type]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def probe(tmp_path: Path, paths: list[Path]) -> dict[str, bool]:
    """For each path, whether the confined process can read it."""
    code = f"import json, os; print(json.dumps({{p: os.access(p, os.R_OK) for p in {[str(p) for p in paths]!r}}}))"
    out = run(tmp_path, code)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@needs_sandbox
def test_the_guidance_root_and_host_tmp_are_out_of_sight(tmp_path):
    with tempfile.NamedTemporaryFile(dir="/tmp", prefix="host-secret-") as host_file:
        root_entries = [Path("/root", name) for name in os.listdir("/root")] if os.access("/root", os.R_OK) else []
        paths = [EXPERT, Path(host_file.name), *root_entries[:5], REPO / "README.md"]
        assert all(os.access(p, os.R_OK) for p in paths)  # all readable here, so the test can fail
        seen = probe(tmp_path, paths)
    assert not any(seen.values()), seen


@needs_sandbox
def test_no_secret_and_no_parent_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-do-not-leak")
    monkeypatch.setenv("WORKBENCH_HOST_ONLY", "host-only")  # not a secret: absent because env is cleared
    parent = os.getpid()
    code = (f"import os; print(sorted(os.environ)); print(os.path.exists('/proc/{parent}'));"
            f"print(open('/proc/{parent}/environ').read() if os.path.exists('/proc/{parent}') else '')")  # fmt: skip
    env = safe_environment(home=tmp_path / "w")
    assert "ANTHROPIC_API_KEY" not in env and env.pop("WORKBENCH_HOST_ONLY") == "host-only"
    out = run(tmp_path, code, env=env)
    assert out.returncode == 0, out.stderr
    assert "do-not-leak" not in out.stdout and "WORKBENCH_HOST_ONLY" not in out.stdout
    assert out.stdout.splitlines()[1] == "False"


@needs_sandbox
def test_sees_only_its_own_processes(tmp_path):
    out = run(tmp_path, "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    pids = json.loads(out.stdout)
    assert len(pids) <= 4 and os.getpid() not in pids  # bubblewrap's init, python, perhaps its helper


@needs_sandbox
def test_no_network_even_to_this_host(tmp_path):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # reachable unconfined
        out = run(tmp_path, f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)")
    finally:
        server.close()
    assert out.returncode != 0 and ("ConnectionRefused" in out.stderr or "unreachable" in out.stderr), out.stderr


@needs_sandbox
def test_writes_only_inside_the_writable_folder(tmp_path):
    readable = tmp_path / "ro"
    readable.mkdir()
    (readable / "in.txt").write_text("data")
    code = f"""import pathlib
print(pathlib.Path({str(readable / "in.txt")!r}).read_text())
pathlib.Path("made.txt").write_text("ok")
for target in [{str(readable / "x.txt")!r}, {str(tmp_path / "x.txt")!r}]:
    try:
        pathlib.Path(target).write_text("escaped")
    except OSError as exc:
        print(type(exc).__name__)"""
    out = run(tmp_path, code, readable=[readable])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["data", "OSError"]  # the other write lands in the private /tmp, see below
    assert (tmp_path / "w" / "made.txt").read_text() == "ok"
    assert not (readable / "x.txt").exists() and not (tmp_path / "x.txt").exists()


@needs_sandbox
@pytest.mark.parametrize("prlimit", [True, False], ids=["prlimit", "python-setter"])
def test_file_size_and_cpu_limits_hold(tmp_path, monkeypatch, prlimit):
    if not prlimit:
        real_which = sandbox.shutil.which
        monkeypatch.setattr(sandbox.shutil, "which", lambda name: None if name == "prlimit" else real_which(name))
    big = "open('big', 'wb').write(b'x' * (4 << 20))"
    out = run(tmp_path, big, limits=Limits(file_bytes=1 << 20))
    assert out.returncode != 0 and (tmp_path / "w" / "big").stat().st_size <= 1 << 20
    started = time.monotonic()
    spin = run(tmp_path, "while True: pass", limits=Limits(cpu_seconds=1), timeout=30)
    assert spin.returncode != 0 and time.monotonic() - started < 20


@needs_sandbox
def test_a_passed_descriptor_works_inside(tmp_path):
    ours, theirs = socket.socketpair()
    with ours, theirs:
        code = f"import socket; s = socket.socket(fileno={theirs.fileno()}); s.sendall(s.recv(5).upper())"
        command = confine([sys.executable, "-c", code], writable=[tmp_path], chdir=tmp_path,
                          env=safe_environment(home=tmp_path), keep_fds=[theirs.fileno()])  # fmt: skip
        child = subprocess.Popen(command, pass_fds=[theirs.fileno()], stderr=subprocess.PIPE, text=True)
        ours.sendall(b"hello")
        ours.settimeout(30)
        try:
            assert ours.recv(5) == b"HELLO"
        finally:
            child.kill()
            child.communicate()


@needs_sandbox
def test_the_python_environment_works_but_not_the_project(tmp_path):
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / "solution.py").write_text("VALUE = 42\n")
    code = f"""import sys, torch, triton
sys.path.insert(0, {str(solution)!r})
import solution
print(solution.VALUE, torch.tensor([1.0, 2.0]).sum().item())
try:
    import workbench
    print("project visible")
except ImportError:
    print("project absent")"""
    out = run(tmp_path, code, readable=[solution])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["42", "3.0", "project", "absent"]


@needs_sandbox
def test_gpu_sessions_see_sys_and_others_do_not(tmp_path):
    code = "import os; print(os.path.isdir('/sys/class'))"
    assert run(tmp_path, code).stdout.strip() == "False"
    assert run(tmp_path, code, gpu=True).stdout.strip() == "True"


def test_home_outside_the_writable_folders_is_refused(tmp_path):
    if not confinement().works:
        pytest.skip("no confinement here")
    with pytest.raises(ValueError, match="HOME"):
        confine(["true"], writable=[tmp_path], chdir=tmp_path, env={"HOME": "/root"})


def test_switched_off_or_missing_it_says_so(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_NO_SANDBOX", "1")
    assert not confinement().works and "WORKBENCH_NO_SANDBOX" in (confinement().reason or "")
    assert "UNCONFINED" in (unconfined_warning() or "")
    with pytest.raises(RuntimeError, match="does not work"):
        confine(["true"], writable=[tmp_path], chdir=tmp_path, env={})
    first, second = (run_bash("true", tmp_path, 10) for _ in range(2))
    assert not first.confined and UNCONFINED_NOTE in first.for_model() and "WORKBENCH_NO_SANDBOX" in first.for_model()
    assert UNCONFINED_NOTE not in second.for_model()  # once per session is enough
    monkeypatch.delenv("WORKBENCH_NO_SANDBOX")
    monkeypatch.setenv("WORKBENCH_BWRAP", str(tmp_path / "no-such-bwrap"))
    assert not confinement().works and "not installed" in (confinement().reason or "")


@needs_sandbox
def test_the_agents_shell_sees_no_guidance_and_no_project(tmp_path, monkeypatch):
    work = tmp_path / "sess" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    command = f"echo inside > made.txt; cat {EXPERT}; ls -A {REPO.parent} {REPO}"
    result = run_bash(command, Path("sess/work"), 30)  # a relative workspace, as `--sessions relsess` gives
    assert result.confined and result.note is None and (work / "made.txt").read_text() == "inside\n"
    assert "No such file" in result.output and "def " not in result.output
    listed = set(result.output.split())
    assert not listed & {"guidance", "tasks", "sessions", "README.md", "workbench", "docs"}, result.output


def test_a_gpu_sandbox_sees_the_c_compiler_triton_builds_with_even_outside_the_system_folders(tmp_path):
    """GPU machines keep their compiler in places like /opt/gcc ($CC); Triton builds its launcher with it."""
    prefix = tmp_path / "opt-gcc"
    (prefix / "bin").mkdir(parents=True)
    compiler = prefix / "bin" / "gcc"
    compiler.write_text("#!/bin/sh\necho compiler-ran\n")
    compiler.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {**sandbox.safe_environment(home=work), "CC": str(compiler)}
    assert prefix in sandbox.toolchain_paths(env)
    command = sandbox.confine(["sh", "-c", '"$CC"'], writable=[work], chdir=work, gpu=True, env=env)
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert proc.stdout.strip() == "compiler-ran", proc.stderr


def test_the_working_directory_python_put_on_sys_path_is_not_mounted(tmp_path, monkeypatch):
    """`python -m` run from /tmp puts /tmp first on sys.path; mounting it would lay the host's /tmp over the private
    one (and show it). A PYTHONPATH entry is mounted: it was asked for."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert tmp_path.resolve() not in sandbox.python_environment_paths()
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert tmp_path.resolve() in sandbox.python_environment_paths()


def test_the_private_tmp_is_bounded(tmp_path):
    """It is memory (tmpfs): a process filling it must hit its size, not the host's RAM. The default is 2 GiB;
    the test fills a small one, since what it fills is charged to the memory of whatever runs the tests."""
    assert sandbox.Limits().tmp_bytes == sandbox.TMP_BYTES
    limits = sandbox.Limits(tmp_bytes=16 << 20)
    work = tmp_path / "work"
    work.mkdir()
    env = sandbox.safe_environment(home=work)
    script = f"head -c {limits.tmp_bytes + (1 << 20)} /dev/zero > /tmp/fill; echo status $?; du -k /tmp/fill"
    proc = subprocess.run(sandbox.confine(["sh", "-c", script], writable=[work], chdir=work, env=env, limits=limits),
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert "status 0" not in proc.stdout and "No space left" in proc.stderr, (proc.stdout, proc.stderr)
    assert int(proc.stdout.split()[-2]) <= limits.tmp_bytes >> 10, proc.stdout
