"""No tool call ends a session, and no tool result poisons the conversation: an exception inside a tool is an
error result with its type and message (no traceback of ours), and every result is valid UTF-8, also where the
workspace holds a file name that is not, live and after a resume."""

import json
import threading

import pytest
from conftest import REPO
from session_helpers import make_loop, task  # noqa: F401

from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.session import file_tools
from workbench.session.history import complete_prefix, rebuild
from workbench.session.log import SessionLog, read_log
from workbench.session.store import SessionSetup, build_loop
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task

BAD_NAME = b"kernel\xff.py"  # Latin-1 bytes, not UTF-8: Python reads the name as "kernel\udcff.py"


@pytest.fixture
def box(tmp_path):
    rmsnorm = load_task("rmsnorm_residual", REPO)
    create_workspace(rmsnorm, tmp_path / "work", set())
    return ToolBox(rmsnorm, tmp_path / "work", "interpret")


def strict_json(value) -> bytes:
    """What an API client sends: JSON as UTF-8, which a lone surrogate cannot be encoded to."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def test_a_file_name_that_is_not_utf8_is_shown_escaped(box):
    (box.work / BAD_NAME.decode("utf-8", "surrogateescape")).write_text("x = 1\n")
    for name, args in [("list_files", {}), ("bash", {"command": "ls"})]:
        text = box.execute(name, args, threading.Event()).text
        strict_json(text)
        assert "kernel\\xff.py" in text
    assert "its name is not UTF-8" in box.execute("list_files", {}, threading.Event()).text


def test_a_surrogate_the_model_sent_comes_back_escaped(box):
    outcome = box.execute("read_file", {"path": "no-such-\udcff-\ud800.py"}, threading.Event())
    assert outcome.is_error and "no-such-\\xff-\\ud800.py: a path cannot hold a lone surrogate" in outcome.text
    strict_json(outcome.text)


def test_an_unexpected_exception_is_an_error_result_without_our_traceback(box, monkeypatch):
    def broken(*args):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(file_tools, "read_file", broken)
    outcome = box.execute("read_file", {"path": "solution.py"}, threading.Event())
    assert outcome.is_error and outcome.text == "error: read_file failed: RuntimeError: disk on fire"
    assert outcome.traceback is not None and "Traceback" in outcome.traceback  # kept for the workbench's developers


def test_a_solution_that_is_not_utf8_is_an_error_result(box):
    (box.work / "solution.py").write_bytes(b"# caf\xe9\n")
    outcome = box.execute("evaluate", {"workloads": ["tiny"]}, threading.Event())
    assert outcome.is_error and "UnicodeDecodeError" in outcome.text and outcome.eval_result is None


class CheckingProvider(ScriptedProvider):
    """The scripted provider, but it encodes each request as an API client would first."""

    def complete(self, request, *args, **kwargs):
        strict_json([m.to_dict() for m in request.messages])
        return super().complete(request, *args, **kwargs)


def test_a_bad_file_name_poisons_neither_the_next_request_nor_a_resume(make_loop, task):  # noqa: F811
    listing = {"type": "tool_use", "id": "t1", "name": "list_files", "input": {}}
    turns = [ScriptedTurn([{"type": "text", "text": "look"}, listing]), ScriptedTurn([{"type": "text", "text": "ok"}])]
    loop, folder, _ = make_loop(turns, budget=2)
    (loop.work / BAD_NAME.decode("utf-8", "surrogateescape")).write_text("x = 1\n")
    loop.provider = CheckingProvider(turns)
    loop.start()
    assert loop.wait(timeout=60) == "budget", loop.failure
    loop.log.close()
    events = read_log(folder / "events.jsonl").events
    [result] = [e for e in events if e.kind == "tool_result"]
    assert "kernel\\xff.py" in result.text
    state = rebuild(complete_prefix(events))  # what a resume goes on from
    strict_json([m.to_dict() for m in state.conversation.messages])
    setup = SessionSetup(task, set(), CheckingProvider([ScriptedTurn([{"type": "text", "text": "again"}])]),
                         loop.limits.__class__(budget=3), "interpret")  # fmt: skip
    resumed = build_loop(setup, folder, SessionLog(folder / "events.jsonl", next_seq=events[-1].seq + 1), state)
    resumed.start()
    assert resumed.wait(timeout=60) == "budget", resumed.failure
