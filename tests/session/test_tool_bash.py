"""bash results: the head and the tail of a long output with the cut counted, the exit told plainly."""

import io
import os
import threading
import time

import pytest
from conftest import REPO

from workbench.session import bash
from workbench.session.bash import OUTPUT_CAP, cap_output, run_killable
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task


@pytest.fixture
def box(tmp_path):
    task = load_task("rmsnorm_residual", REPO)
    create_workspace(task, tmp_path / "work", set())
    return ToolBox(task, tmp_path / "work", "interpret")


def run(box, command, **args):
    return box.execute("bash", {"command": command, **args}, threading.Event())


def test_a_long_output_keeps_its_head_and_tail_and_says_what_was_cut(box):
    text = run(box, "echo FIRST-ERROR; seq 1 100000; echo LAST-LINE").text
    assert text.startswith("FIRST-ERROR\n1\n2\n") and "99999\n100000\nLAST-LINE\n[exit code 0]" in text
    assert "lines (" in text and "characters) cut from the middle of the output" in text
    assert "| head" in text and "grep" in text
    assert len(text) < OUTPUT_CAP + 1000


def test_exit_codes_and_signals_are_said_plainly(box):
    failed = run(box, "echo out; exit 3")
    assert failed.is_error and failed.text == "out\n[exit code 3]"
    killed = run(box, "kill -9 $$")
    assert killed.is_error and "[exit code 137: killed by SIGKILL" in killed.text and "(no output)" in killed.text


def test_the_timeout_is_said_with_its_length(box):
    started = time.monotonic()
    outcome = run(box, "echo started; sleep 30", timeout_s=1)
    assert time.monotonic() - started < 10
    assert "started\n[killed: the command ran past its timeout of 1 s" in outcome.text and outcome.is_error


def test_output_that_is_not_utf8_is_shown_escaped(box):
    outcome = run(box, r"printf 'a\377b\n'")
    assert "a\\xffb" in outcome.text
    outcome.text.encode("utf-8")


def test_a_nul_in_the_command_is_an_error_result(box):
    outcome = run(box, "echo a\x00b")
    assert outcome.is_error and "NUL" in outcome.text


def test_a_huge_output_is_cut_without_decoding_it_whole(monkeypatch):
    monkeypatch.setattr(bash, "DECODE_WHOLE_BYTES", 1000)
    data = b"".join(b"line %d\n" % i for i in range(100_000))
    capped = cap_output(io.BytesIO(data), len(data), head_chars=100, tail_chars=100)
    assert capped.head.startswith("line 0\n") and capped.tail.endswith("line 99999\n")
    assert capped.cut_unit == "bytes" and capped.cut_amount == len(data) - len(capped.head) - len(capped.tail)
    assert capped.cut_lines == 100_000 - capped.head.count("\n") - capped.tail.count("\n")


def test_a_timeout_kills_what_the_command_started_too(tmp_path):
    pid_file = tmp_path / "pid"
    with open(tmp_path / "out", "w+b") as out:
        finished = run_killable(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], cwd=tmp_path, env=os.environ,
                                timeout_s=1, cancel=None, out=out)  # fmt: skip
    assert finished.timed_out
    pid = int(pid_file.read_text())
    time.sleep(0.2)
    state = open(f"/proc/{pid}/stat").read().split()[2] if os.path.exists(f"/proc/{pid}/stat") else "gone"
    assert state in ("gone", "Z")  # killed (a zombie until whatever adopted it reaps it)
