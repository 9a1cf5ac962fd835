"""Kill -9 mid-run, resume, replay and branch, through the real command line."""

import json
import os
import re
import signal
import subprocess
import sys
import time

from conftest import FIXTURE_ROOT
from session_helpers import SCRIPT

from workbench.session.history import complete_prefix, effective, rebuild
from workbench.session.log import read_log


def workbench(*args, sessions, wait=True):
    env = {**os.environ, "WORKBENCH_ROOT": str(FIXTURE_ROOT)}
    command = [sys.executable, "-m", "workbench", *args, *(["--sessions", str(sessions)] if sessions else [])]
    if not wait:
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def slow_script(tmp_path):
    turns = json.loads(SCRIPT.read_text())
    for turn in turns:
        turn["delay_s"] = 0.01
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(turns))
    return path


# Each eval draws its seeds afresh (a solution must not know its inputs in advance), so two runs of one script differ
# in the seeds and in the values an eval quotes; everything else must be the same.
_DRAWN = re.compile(r"seed \d+|got [-\d.e+nainf]+, expected [-\d.e+nainf]+|abs err [-\d.e+nainf]+")


def conversation(folder):
    messages = rebuild(effective(read_log(folder / "events.jsonl").events)).conversation.messages
    return json.loads(_DRAWN.sub("<drawn>", json.dumps([m.to_dict() for m in messages])))


def turn_ends(folder):
    path = folder / "events.jsonl"
    return path.read_text().count('"kind": "turn_end"') if path.exists() else 0


def test_kill_resume_replay_and_branch(tmp_path):
    script = slow_script(tmp_path)
    run = ("run", "scale_add", "--provider", "scripted", "--script", str(script), "--mode", "interpret")

    reference_sessions = tmp_path / "uninterrupted"
    done = workbench(*run, sessions=reference_sessions)
    assert done.returncode == 0, done.stdout + done.stderr
    (reference,) = reference_sessions.iterdir()

    sessions = tmp_path / "killed"
    proc = workbench(*run, sessions=sessions, wait=False)
    deadline = time.monotonic() + 300
    while not (sessions.exists() and any(turn_ends(f) >= 2 for f in sessions.iterdir())):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    (killed,) = sessions.iterdir()
    assert not any(e.kind == "session_end" for e in read_log(killed / "events.jsonl").events)

    resumed = workbench("resume", str(killed), "--script", str(script), sessions=sessions)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming" in resumed.stdout and "session ended: submitted" in resumed.stdout
    events = effective(read_log(killed / "events.jsonl").events)
    assert events[-1].kind == "session_end" and events[-1].reason == "submitted"
    assert conversation(killed) == conversation(reference)  # the same conversation as a run never killed
    assert (killed / "work" / "solution.py").read_text() == (reference / "work" / "solution.py").read_text()

    replay = workbench("replay", str(killed), sessions=None)
    assert replay.returncode == 0 and "submit" in replay.stdout

    branched = workbench("branch", str(reference), "--turn", "2", "--script", str(script), sessions=tmp_path / "b")
    assert branched.returncode == 0, branched.stdout + branched.stderr
    (branch,) = (tmp_path / "b").iterdir()
    branch_events = read_log(branch / "events.jsonl").events
    assert branch_events[0].parent == {"session": str(reference), "turn": 2}
    inherited = [e for e in branch_events if e.inherited]
    assert [e.turn for e in inherited if e.kind == "turn_end"] == [1, 2]
    first_two = rebuild(complete_prefix(read_log(reference / "events.jsonl").events, up_to_turn=2))
    branch_two = rebuild(complete_prefix(branch_events, up_to_turn=2))
    assert [m.to_dict() for m in branch_two.conversation.messages] == [
        m.to_dict() for m in first_two.conversation.messages
    ]
    assert conversation(branch) == conversation(reference)  # the same script continues the same way


def test_bad_session_input_is_one_line(tmp_path):
    missing = workbench("resume", str(tmp_path / "nope"), sessions=None)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no session log" in missing.stderr
    no_script = workbench("run", "scale_add", "--provider", "scripted", sessions=tmp_path)
    assert no_script.returncode == 2 and "--script" in no_script.stderr
    no_key = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "scale_add", "--sessions", str(tmp_path / "s")],
        env={k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"} | {"WORKBENCH_ROOT": str(FIXTURE_ROOT)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert no_key.returncode == 2 and "ANTHROPIC_API_KEY" in no_key.stderr and no_key.stderr.count("\n") == 1
    assert not (tmp_path / "s").exists()  # no session folder before the key was found
