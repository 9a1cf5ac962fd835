import os
import threading
import time

import pytest
from conftest import REPO
from session_helpers import task  # noqa: F401

from workbench.harness.lock import lock_path
from workbench.harness.sandbox import confinement
from workbench.session.bash import OUTPUT_CAP, UNCONFINED_NOTE
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace


@pytest.fixture
def box(task, tmp_path):  # noqa: F811
    create_workspace(task, tmp_path / "work", set())
    return ToolBox(task, tmp_path / "work", "interpret")


def call(box, name, **args):
    return box.execute(name, args, threading.Event())


def test_file_tools(box):
    assert "wrote notes.txt" in call(box, "write_file", path="notes.txt", content="a\nb\n").text
    assert call(box, "read_file", path="notes.txt").text == "     1\ta\n     2\tb\n[notes.txt: 2 lines, all shown]"
    assert "1 replacement" in call(box, "edit_file", path="notes.txt", old="b", new="c").text
    assert (box.work / "notes.txt").read_text() == "a\nc\n"
    listing = call(box, "list_files").text
    assert "notes.txt" in listing and "solution.py" in listing


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("edit_file", {"path": "solution.py", "old": "no such text", "new": "x"}, "does not occur"),
        ("edit_file", {"path": "solution.py", "old": "import", "new": "x"}, "occurs 3 times"),
        ("read_file", {"path": "../outside.txt"}, "outside the workspace"),
        ("write_file", {"path": "/tmp/escape.txt", "content": "x"}, "outside the workspace"),
        ("read_file", {}, "missing argument 'path'"),
        ("frobnicate", {}, "unknown tool"),
    ],
)
def test_tool_errors_go_back_to_the_agent(box, name, args, message):
    outcome = box.execute(name, args, threading.Event())
    assert outcome.is_error and message in outcome.text


def test_bash_runs_in_the_workspace_with_exit_code(box):
    outcome = call(box, "bash", command="pwd; ls solution.py; exit 3")
    assert str(box.work.resolve()) in outcome.text and "[exit code 3]" in outcome.text and outcome.is_error


def test_bash_output_is_capped_and_marked(box):
    outcome = call(box, "bash", command="python3 -c \"print('x' * 50000)\"")
    assert "characters) cut from the middle of the output" in outcome.text and len(outcome.text) < OUTPUT_CAP + 1000


def test_bash_timeout_kills_the_command(box):
    started = time.monotonic()
    outcome = call(box, "bash", command="sleep 30", timeout_s=1)
    assert time.monotonic() - started < 10 and "ran past its timeout" in outcome.text


def test_bash_sees_no_secrets(box, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-do-not-leak")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-do-not-leak")
    outcome = call(box, "bash", command="env")
    assert "do-not-leak" not in outcome.text and "ANTHROPIC_API_KEY" not in outcome.text


@pytest.mark.skipif(not confinement().works, reason="no confinement on this machine")
def test_bash_cannot_write_outside_the_workspace_when_confined(box, tmp_path):
    target = tmp_path / "outside.txt"
    outcome = call(box, "bash", command=f"echo x > {target}; echo inside > inside.txt; cat inside.txt")
    assert not target.exists()
    assert (box.work / "inside.txt").read_text() == "inside\n"
    assert UNCONFINED_NOTE not in outcome.text


def test_bash_says_once_when_it_runs_unconfined(box, monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_SANDBOX", "1")
    first, second = call(box, "bash", command="true").text, call(box, "bash", command="true").text
    assert UNCONFINED_NOTE in first and "WORKBENCH_NO_SANDBOX" in first and UNCONFINED_NOTE not in second


def test_interrupting_bash_kills_it(box):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    outcome = box.execute("bash", {"command": "sleep 60"}, cancel)
    assert time.monotonic() - started < 10 and "interrupted" in outcome.text


def test_evaluate_and_submit_run_the_harness(box):
    (box.work / "solution.py").write_text((box.task.expert_path).read_text())
    outcome = call(box, "evaluate", workloads=["tiny"])
    assert outcome.eval_result is not None and outcome.eval_result.correct and "CORRECT" in outcome.text
    submitted = call(box, "submit")
    assert submitted.submission and submitted.final and submitted.eval_result.correct


def test_profile_says_clearly_when_ncu_is_missing(box, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    outcome = call(box, "profile", workload="tiny")
    assert outcome.is_error and "ncu" in outcome.text and "not installed" in outcome.text
    assert os.environ["PATH"] == "/nonexistent"


@pytest.mark.skipif(not confinement().works, reason="no confinement on this machine")
def test_profile_runs_confined_with_the_lock_outside(box, monkeypatch, tmp_path):
    tools = tmp_path / "bin"
    tools.mkdir()
    expert = REPO / "guidance" / "rmsnorm_residual" / "expert.py"
    ncu = tools / "ncu"  # stands in for Nsight Compute: reports what it can see
    ncu.write_text(f"#!/bin/sh\nfor p in {expert} {lock_path()} {box.task.path}; do test -e $p && echo seen $p; done\n")
    ncu.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    lock_path().touch()
    (box.work / "solution.py").write_text(box.task.expert_path.read_text())  # a kernel to profile
    outcome = call(box, "profile", workload="tiny")
    seen = [line.split()[1] for line in outcome.text.splitlines() if line.startswith("seen ")]
    assert seen == [str(box.task.path.resolve())], outcome.text
