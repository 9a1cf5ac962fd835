"""Larger and binary files of the workspace survive a resume that discards a cut turn, and reach a branch."""

from __future__ import annotations

import hashlib
import json

from session_helpers import Recorder, make_loop, task  # noqa: F401

from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.session.events import event_to_dict
from workbench.session.history import complete_prefix, rebuild
from workbench.session.log import read_log
from workbench.session.loop import Limits
from workbench.session.store import SessionSetup, claim_resume, create_session, reopen

BIG = "x = 1\n" * 60_000  # 360 KB of text: over the text snapshot's 256 KB
BINARY = bytes(range(256)) * 4
# written by the agent's bash, which sees only its workspace
MAKE = (
    "python3 -c \"open('big.py', 'w').write('x = 1\\n' * 60000); open('table.bin', 'wb').write(bytes(range(256)) * 4)\""
)


def bash(i: int, command: str) -> ScriptedTurn:
    return ScriptedTurn([{"type": "tool_use", "id": f"t{i}", "name": "bash", "input": {"command": command}}])


def test_a_cut_turn_that_changed_large_and_binary_files_is_undone_on_resume(make_loop, tmp_path):  # noqa: F811
    make = MAKE
    spoil = "rm big.py && printf broken > table.bin"
    loop, folder, _ = make_loop([bash(0, make), bash(1, spoil)], budget=2)
    loop.start()
    assert loop.wait(timeout=120) == "budget"
    loop.log.close()
    work = folder / "work"
    assert not (work / "big.py").exists() and (work / "table.bin").read_bytes() == b"broken"
    events = read_log(folder / "events.jsonl").events
    # a kill during turn 2's end: its turn_end (and what follows) never written
    second_end = next(e for e in events if e.kind == "turn_end" and e.turn == 2)
    kept = [e for e in events if e.seq < second_end.seq]
    (folder / "events.jsonl").write_text("".join(json.dumps(event_to_dict(e)) + "\n" for e in kept))
    writer, point = claim_resume(folder)
    assert point.state.turn == 1 and set(point.state.blobs) == {"big.py", "table.bin"}
    reopen(folder, point, ScriptedProvider([]), writer).close()
    assert (work / "big.py").read_text() == BIG and (work / "table.bin").read_bytes() == BINARY


def test_a_branch_gets_its_parents_large_and_binary_files(make_loop, task, tmp_path):  # noqa: F811
    loop, folder, _ = make_loop([bash(0, MAKE)], budget=1)
    loop.start()
    assert loop.wait(timeout=120) == "budget"
    loop.log.close()
    history = complete_prefix(read_log(folder / "events.jsonl").events, up_to_turn=1)
    setup = SessionSetup(task, set(), ScriptedProvider([]), Limits(5), "interpret")
    branch, log = create_session(setup, tmp_path / "branches", history, parent={"session": str(folder), "turn": 1})
    log.close()
    assert (branch / "work" / "table.bin").read_bytes() == BINARY
    blobs = rebuild(read_log(branch / "events.jsonl").events).blobs
    assert blobs["table.bin"] == hashlib.sha256(BINARY).hexdigest() and (branch / "work" / "big.py").read_text() == BIG
