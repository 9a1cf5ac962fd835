"""One writer per session: a second writer (resume, the app, the judge, a bench) is refused, naming the holder."""

import os
import signal
import subprocess
import sys

import pytest
from conftest import FIXTURE_ROOT
from session_helpers import SCRIPT

from workbench.agent.scripted import ScriptedProvider
from workbench.judge import judge_session
from workbench.judge.judge import JudgeUsageError
from workbench.session.log import SessionLog, read_log
from workbench.session.writer import LOCK_NAME, SessionBusy, Writer, holder

HOLD = """import sys, time
from pathlib import Path
from workbench.session.writer import Writer
writer = Writer.claim(Path(sys.argv[1]), "holding for a test")
print("held", flush=True)
time.sleep(600)
"""


def _workbench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WORKBENCH_ROOT": str(FIXTURE_ROOT)}
    return subprocess.run([sys.executable, "-m", "workbench", *args], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.fixture
def held_elsewhere():
    """Claims a folder's writer lock in another process; yields a function taking the folder."""
    started: list[subprocess.Popen[str]] = []

    def hold(folder):
        proc = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        started.append(proc)
        return proc

    yield hold
    for proc in started:
        proc.kill()
        proc.wait()


@pytest.fixture
def killed_session(tmp_path):
    """A scripted session run to its end (it submits at turn 5), then cut back to turn 2, as a kill there leaves it."""
    sessions = tmp_path / "sessions"
    done = _workbench("run", "scale_add", "--provider", "scripted", "--script", str(SCRIPT), "--mode", "interpret",
                      "--sessions", str(sessions))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (folder,) = sessions.iterdir()
    path = folder / "events.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    second_turn_end = [i for i, line in enumerate(lines) if '"kind": "turn_end"' in line][1]
    path.write_text("".join(lines[: second_turn_end + 1]))  # as if killed right after turn 2
    return folder


def test_a_second_writer_in_this_process_is_refused_and_a_released_claim_is_free(tmp_path):
    first = Writer.claim(tmp_path, "first")
    with pytest.raises(SessionBusy, match=rf"is being written by pid {os.getpid()} on .* \(first\) since "):
        Writer.claim(tmp_path)
    assert holder(tmp_path)["pid"] == os.getpid()
    first.release()
    assert holder(tmp_path) is None
    with Writer.claim(tmp_path):
        pass


def test_a_session_log_holds_the_writer_lock_until_closed(tmp_path):
    log = SessionLog(tmp_path / "events.jsonl")
    with pytest.raises(SessionBusy):
        SessionLog(tmp_path / "events.jsonl")
    log.close()
    SessionLog(tmp_path / "events.jsonl").close()


def test_the_lock_of_a_process_killed_with_sigkill_is_taken_over(tmp_path, held_elsewhere):
    proc = held_elsewhere(tmp_path)
    with pytest.raises(SessionBusy, match=rf"pid {proc.pid} .*holding for a test"):
        Writer.claim(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert holder(tmp_path) is None, "a dead process holds nothing"
    with Writer.claim(tmp_path) as writer:
        assert writer.held
    assert (tmp_path / LOCK_NAME).exists()


def test_resume_of_a_session_another_process_writes_is_refused_and_changes_nothing(killed_session, held_elsewhere):
    proc = held_elsewhere(killed_session)
    log_before = (killed_session / "events.jsonl").read_bytes()
    (killed_session / "work" / "solution.py").write_text("# the running agent's newest edit\n")
    refused = _workbench("resume", str(killed_session), "--script", str(SCRIPT))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert refused.stderr.count("\n") == 1 and f"is being written by pid {proc.pid}" in refused.stderr
    assert (killed_session / "events.jsonl").read_bytes() == log_before
    assert (killed_session / "work" / "solution.py").read_text() == "# the running agent's newest edit\n"


def test_two_resumes_at_once_one_runs_and_the_log_stays_one_session(killed_session):
    env = {**os.environ, "WORKBENCH_ROOT": str(FIXTURE_ROOT)}
    command = [sys.executable, "-m", "workbench", "resume", str(killed_session), "--script", str(SCRIPT)]
    procs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]  # fmt: skip
    outs = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], outs  # the second is refused: busy, or (when it came late) already submitted
    events = read_log(killed_session / "events.jsonl").events
    seqs = [e.seq for e in events]
    assert len(seqs) == len(set(seqs)) and seqs == sorted(seqs)
    assert sum(e.kind == "session_resumed" for e in events) == 1
    assert sum(e.kind == "session_end" for e in events) == 1


class CountingJudge(ScriptedProvider):
    """A judge's model that records each request it is sent."""

    def __init__(self) -> None:
        super().__init__([], model="counting-judge")
        self.requests: list[object] = []

    def complete(self, request, on_delta, cancel, on_retry=None):
        self.requests.append(request)
        return super().complete(request, on_delta, cancel, on_retry)


def test_judge_during_a_run_is_refused_before_paying(killed_session, held_elsewhere):
    proc = held_elsewhere(killed_session)
    before = (killed_session / "events.jsonl").read_bytes()
    provider = CountingJudge()
    with pytest.raises(JudgeUsageError, match=f"is being written by pid {proc.pid}"):
        judge_session(killed_session, provider, root=FIXTURE_ROOT)
    assert provider.requests == [], "nothing may be sent (and paid) for a judgement that cannot be logged"
    assert (killed_session / "events.jsonl").read_bytes() == before


def test_a_second_bench_on_one_folder_is_refused(tmp_path, held_elsewhere):
    bench = tmp_path / "bench"
    bench.mkdir()
    proc = held_elsewhere(bench)
    refused = _workbench("bench", "--tasks", "scale_add", "--models", "anthropic:claude-sonnet-4-5", "--out",
                         str(bench), "--mode", "interpret")  # fmt: skip
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"is being written by pid {proc.pid}" in refused.stderr
    assert sorted(p.name for p in bench.iterdir()) == [LOCK_NAME], "nothing may be written into a held bench"


def test_the_apps_resume_of_a_busy_session_is_refused_and_keeps_its_workspace(killed_session, held_elsewhere,
                                                                               monkeypatch):  # fmt: skip
    from workbench.tui.launch import LaunchError, resume_session

    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
    proc = held_elsewhere(killed_session)
    (killed_session / "work" / "solution.py").write_text("# the running agent's newest edit\n")
    with pytest.raises(LaunchError, match=f"is being written by pid {proc.pid}"):
        resume_session(killed_session, [SCRIPT.parent])
    assert (killed_session / "work" / "solution.py").read_text() == "# the running agent's newest edit\n"
    proc.kill()
    proc.wait()
    live = resume_session(killed_session, [SCRIPT.parent])  # free again: the app resumes it
    try:
        assert holder(killed_session)["pid"] == os.getpid()
    finally:
        live.log.close()
    assert holder(killed_session) is None
