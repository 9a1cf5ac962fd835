"""Exploit solutions written against the harness's trust design (docs/security.md), each rejected for its reason.

Every file in solutions/ whose name starts with `c` is an exploit: a docstring says what it tries and why it must
fail, `# expect: VERDICT` names the rejection (the vocabulary of harness.verdict), `# also: VERDICT, ...` other
acceptable ones. Other header lines: `# task:` (default the scale_add fixture), `# seeds:`, `# timeout:`,
`# hidden: true` (passes evaluate, must fail the hidden workloads), `# gpu: true` (its verdict needs the GPU's
timing: in interpret mode it must at least not be reported correct with a speedup), `# host:` (a host-side effect
the test checks did not happen). Files starting with `_` are the exploits' helper modules, which solution.py
imports (the eval copies and checks what it imports). Exploits run with the static rules out of the way.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FIXTURE_ROOT, REPO

from workbench.harness import EvalOptions, evaluate, runner
from workbench.harness.result import EvalResult, StaticResult
from workbench.harness.verdict import verdicts
from workbench.tasks import Task, load_task

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
SECRET = "sk-test-secret"
DAEMON_MARKER = "adversarial-daemon-marker"
FILL_NAME = "adversarial-fill.bin"
_META = re.compile(r"^# ([a-z][a-z-]*): (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Exploit:
    path: Path
    meta: dict[str, str]

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def accepted(self) -> set[str]:
        also = self.meta.get("also", "").split("(")[0]  # a parenthesis after the verdicts says why
        return {self.meta["expect"], *(v.strip() for v in also.split(",") if v.strip())}

    @property
    def gpu(self) -> bool:
        return self.meta.get("gpu") == "true"


def exploits() -> list[Exploit]:
    found = []
    for path in sorted(SOLUTIONS.glob("c*.py")):
        meta = dict(_META.findall(path.read_text()))
        assert "expect" in meta, f"{path.name} has no '# expect:' line"
        found.append(Exploit(path, meta))
    return found


class Host:
    """What the host-side checks need: a session stand-in to kill, a server to phone, the secret to find."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.sentinel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                                         start_new_session=True)  # fmt: skip
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.server.getsockname()[1])

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.server.close()
        if self.sentinel.poll() is None:
            os.kill(self.sentinel.pid, signal.SIGKILL)
        self.sentinel.wait()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    """One host for the module, its environment set once, so that every eval reuses one warm checker (a checker
    is kept per environment). The secret sits in the parent's environment, as a session's API key would."""
    host = Host(tmp_path_factory.mktemp("workbench-cache"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
        mp.setenv("WORKBENCH_CACHE", str(host.cache))
        mp.setenv("ANTHROPIC_API_KEY", SECRET)
        mp.setenv("ADVERSARIAL_PORT", str(host.port))
        mp.setenv("ADVERSARIAL_SENTINEL_PID", str(host.sentinel.pid))
        yield host
    host.close()


def _task(exploit: Exploit) -> Task:
    name = exploit.meta.get("task", "scale_add")
    return load_task(name, FIXTURE_ROOT) if name == "scale_add" else load_task(name, REPO)


def _run(exploit: Exploit, mode: str = "interpret") -> EvalResult:
    """The static rules are a speed bump with their own tests: exploits are run past them (unless a static verdict
    is the one they expect), so that what rejects them is the run-time wall."""
    if exploit.meta["expect"].startswith("static:"):
        return _evaluate(exploit, mode)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runner, "check_source", lambda source, forbidden=(), helper=False: StaticResult(ok=True))
        return _evaluate(exploit, mode)


def _evaluate(exploit: Exploit, mode: str) -> EvalResult:
    task = _task(exploit)
    hidden = exploit.meta.get("hidden") == "true"
    first = [w.name for w in task.workloads if w.interpret or mode == "cuda"][:1]
    options = EvalOptions(
        mode=mode, seeds=int(exploit.meta.get("seeds", 1)), timeout_s=float(exploit.meta.get("timeout", 60)),
        workloads=None if hidden else first, hidden=hidden,
    )  # fmt: skip
    return evaluate(task, exploit.path, options)


def _daemons() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if DAEMON_MARKER.encode() in cmdline and str(os.getpid()) != entry.name:
            found.append(entry.name)
    return found


def _check_host(exploit: Exploit, result: EvalResult, host: Host) -> None:
    text = json.dumps(result.to_dict(), default=str)
    assert SECRET not in text, "the secret reached the result"
    assert "LEAKED" not in text, f"the solution leaked what it saw: {text[:1500]}"
    what = exploit.meta.get("host")
    if what == "alive":
        assert host.sentinel.poll() is None, "the session stand-in was killed"
    elif what == "daemon":
        assert not _daemons(), "a daemon outlived the eval"
    elif what == "disk":
        assert not Path("/tmp", FILL_NAME).exists(), "the fill file reached the host's /tmp"
        assert not (SOLUTIONS / FILL_NAME).exists(), "the fill file reached the solution's folder"
        left = list(host.cache.rglob(FILL_NAME))  # the Triton cache lives here and persists between evals
        for path in left:
            path.unlink()
        assert not left, f"the fill file persists on the host: {left}"
    elif what == "network":
        assert host.connections == 0, "the test's server saw a connection from the solution"
    elif what == "ceilings":
        assert not (host.cache / "ceilings.json").exists(), "the ceilings cache was written"


@pytest.mark.parametrize("exploit", exploits(), ids=lambda e: e.name)
def test_exploit_is_rejected_for_its_reason(exploit: Exploit, host: Host) -> None:
    result = _run(exploit)
    found = verdicts(result)
    _check_host(exploit, result, host)
    if exploit.meta["expect"] == "correct":  # a control: the exploits beside it fail only for their cheat
        assert result.correct, result.to_dict()
        return
    assert not (result.correct and result.speedup_geomean), "reported correct with a speedup"
    if exploit.gpu:
        return  # its verdict needs the GPU's timing: test_timing_exploit_on_the_gpu
    assert not result.correct, f"{exploit.name} got through: {result.to_dict()}"
    assert found & exploit.accepted, f"{exploit.name}: {found}, expected {exploit.accepted}: {result.to_dict()}"
    if exploit.meta.get("hidden") == "true":
        visible = [w for w in result.workloads if not w.hidden]
        assert visible and all(w.correct for w in visible), "a hidden-shape exploit must pass the visible workloads"


@pytest.mark.gpu
@pytest.mark.parametrize("exploit", [e for e in exploits() if e.gpu], ids=lambda e: e.name)
def test_timing_exploit_on_the_gpu(exploit: Exploit, host: Host) -> None:
    task = _task(exploit)
    timed = [w.name for w in task.workloads if not w.interpret][:1]
    seeds = int(exploit.meta.get("seeds", 1))  # a cache by address needs a second seed to reuse the first's memory
    options = EvalOptions(mode="cuda", seeds=seeds, workloads=timed, timeout_s=300)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runner, "check_source", lambda source, forbidden=(), helper=False: StaticResult(ok=True))
        result = evaluate(task, exploit.path, options)
    _check_host(exploit, result, host)
    if exploit.name == "c7_inflate_reference" and result.correct:
        honest = evaluate(task, task.expert_path, options)
        (mine,), (theirs,) = result.workloads, honest.workloads
        assert mine.reference_ms.median < 1.2 * theirs.reference_ms.median, "the reference was slowed down"
        return
    assert not result.correct, f"{exploit.name} got through on the GPU: {result.to_dict()}"
    assert verdicts(result) & exploit.accepted, result.to_dict()
