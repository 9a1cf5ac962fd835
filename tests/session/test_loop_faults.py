"""Faults outside the turn (a full disk, a closed stdout, a dead worker) end the session; nothing waits or spins."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from session_helpers import Recorder, make_loop, task  # noqa: F401

from workbench.agent.scripted import ScriptedTurn
from workbench.session.events import Event, event_to_dict
from workbench.session.log import read_log
from workbench.session.loop import LoopState

REPO = Path(__file__).resolve().parents[2]


def turns(n: int) -> list[ScriptedTurn]:
    return [
        ScriptedTurn(
            [
                {"type": "text", "text": str(i)},
                {"type": "tool_use", "id": f"t{i}", "name": "bash", "input": {"command": "true"}},
            ]
        )  # fmt: skip
        for i in range(n)
    ]


def test_a_front_end_that_fails_ends_the_session_with_the_reason(make_loop):  # noqa: F811
    seen = Recorder()

    def printer(event: Event) -> None:
        seen(event)
        if event.kind == "turn_end":
            raise BrokenPipeError(32, "Broken pipe")  # what print() raises once `| head -1` has gone

    loop, folder, _ = make_loop(turns(5), recorder=printer)  # type: ignore[arg-type]
    loop.start()
    assert loop.wait(timeout=60) == "error"
    assert loop.status == LoopState.FINISHED and "front end failed" in (loop.failure or "")
    kinds = [e.kind for e in read_log(folder / "events.jsonl").events]
    assert kinds[-2:] == ["error", "session_end"] and kinds.count("turn_end") == 1  # it stopped at once
    assert seen.kinds().count("turn_end") == 1  # and told the broken front end nothing more


def test_a_full_disk_ends_the_session_instead_of_killing_its_worker(make_loop):  # noqa: F811
    loop, folder, _ = make_loop(turns(5))
    original = loop.log.append
    full = threading.Event()

    def append(event):
        if full.is_set():
            raise OSError(errno.ENOSPC, "No space left on device")
        event = original(event)
        if event.kind == "turn_end":
            full.set()  # every write after the first turn fails, as on a disk that filled
        return event

    loop.log.append = append  # type: ignore[method-assign]
    loop.start()
    started = time.monotonic()
    assert loop.wait(timeout=60) == "error"
    assert time.monotonic() - started < 60 and "No space left on device" in (loop.failure or "")
    events = read_log(folder / "events.jsonl").events
    assert events[-1].kind == "turn_end"  # what was written before the disk filled is whole


def test_a_worker_that_is_gone_without_finishing_reads_as_an_error(make_loop):  # noqa: F811
    loop, _, _ = make_loop(turns(1))
    loop._worker = lambda: None  # type: ignore[method-assign]  # a thread that returns without finishing
    loop.start()
    assert loop.wait(timeout=10) == "error" and loop.failure


def test_workbench_run_into_a_closed_pipe_ends_at_once_and_says_why(tmp_path):
    """`workbench run ... | head -1`: the session ends on the closed stdout, with one line on stderr."""
    script = REPO / "tests" / "fixtures" / "scripts" / "scale_add.json"
    command = [sys.executable, "-m", "workbench", "run", "scale_add", "--provider", "scripted", "--script",
               str(script), "--sessions", str(tmp_path / "sessions"), "--mode", "interpret"]  # fmt: skip
    env = {**os.environ, "WORKBENCH_ROOT": str(REPO / "tests" / "fixtures" / "root")}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=env)
    assert proc.stdout is not None and proc.stdout.readline().startswith(b"session ")
    proc.stdout.close()  # the reader goes away after its first line
    try:
        _, err = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the session kept running into a closed stdout") from None
    assert proc.returncode == 1, err
    lines = err.decode().strip().splitlines()
    assert lines and "the session ended on an error" in lines[-1] and "Broken pipe" in lines[-1], lines
    assert not any("Traceback" in line for line in lines), lines


def test_the_wall_clock_limit_cuts_a_model_stream_that_never_ends(make_loop):  # noqa: F811
    """A stream that keeps the connection alive and says nothing (pings) must not outlive --wall-clock."""
    endless = ScriptedTurn([{"type": "text", "text": "." * 100_000}], delay_s=0.05)  # ~80 minutes of deltas
    loop, folder, _ = make_loop([endless])
    loop.limits.wall_clock_s = 1.0
    started = time.monotonic()
    loop.start()
    assert loop.wait(timeout=60) == "budget"
    assert time.monotonic() - started < 15
    kinds = [e.kind for e in read_log(folder / "events.jsonl").events]
    assert kinds[-1] == "session_end" and "turn_end" not in kinds


def test_the_wall_clock_limit_cuts_a_tool_that_runs_past_it(make_loop):  # noqa: F811
    sleepy = ScriptedTurn([{"type": "tool_use", "id": "t0", "name": "bash", "input": {"command": "sleep 120"}}])
    loop, _, _ = make_loop([sleepy, *turns(3)])
    loop.limits.wall_clock_s = 1.0
    started = time.monotonic()
    loop.start()
    assert loop.wait(timeout=90) == "budget" and time.monotonic() - started < 30


def test_a_priced_model_whose_server_sends_no_usage_costs_unknown_not_zero(make_loop):  # noqa: F811
    import dataclasses

    from workbench.session.headless import TurnPrinter
    from workbench.session.history import rebuild

    loop, folder, rec = make_loop(turns(2), budget=2)
    scripted = loop.provider

    class NoUsage:  # an OpenAI-compatible server that ignores include_usage, serving a model with a list price
        def complete(self, *args, **kwargs):
            response = scripted.complete(*args, **kwargs)
            return dataclasses.replace(response, model="gpt-5", usage_reported=False)

    loop.provider = NoUsage()  # type: ignore[assignment]
    loop.price = lambda model, usage: 0.0 if model == "gpt-5" else None  # zero tokens priced: $0.00
    loop.start()
    assert loop.wait(timeout=60) == "budget"
    end = rec.events[-1]
    assert end.kind == "session_end" and end.cost is None and end.unmetered == 2
    printed = __import__("io").StringIO()
    TurnPrinter(2, printed)(end)
    assert "cost unknown (2 responses without usage)" in printed.getvalue() and "$0.00" not in printed.getvalue()
    state = rebuild(read_log(folder / "events.jsonl").events)
    assert state.unmetered == 2  # and so a resumed session still knows its cost is unknown


def test_a_turn_cut_short_is_discarded_from_the_conversation_but_not_from_the_bill(make_loop):  # noqa: F811
    from workbench.agent.scripted import ScriptedProvider
    from workbench.session.store import claim_resume, reopen

    loop, folder, _ = make_loop(turns(2), budget=1)
    loop.start()
    assert loop.wait(timeout=60) == "budget"
    loop.log.close()
    with open(folder / "events.jsonl") as f:
        seq = max(json.loads(line)["seq"] for line in f) + 1
    cut = {"seq": seq, "time": 0.0, "turn": 2, "kind": "model_response", "content": [{"type": "text", "text": "x"}],
           "stop_reason": "end_turn", "usage": {"input_tokens": 1000, "output_tokens": 500, "cache_read_tokens": 0,
           "cache_write_tokens": 0}, "model": "m", "latency_s": 1.0, "retries": 0, "cost": 0.25}  # fmt: skip
    events = read_log(folder / "events.jsonl").events
    paid_before = sum(e.usage["output_tokens"] for e in events if e.kind == "model_response")
    ends = [e for e in events if e.kind != "session_end"]  # as if the kill came before the end
    (folder / "events.jsonl").write_text("".join(json.dumps(line) + "\n" for line in [*map(event_to_dict, ends), cut]))
    for _ in range(2):  # the discard is remembered by the next resume too
        writer, point = claim_resume(folder)
        assert point.state.turn == 1 and point.state.discarded_responses == 1
        assert point.state.usage.output_tokens == paid_before + 500 and point.state.cost == 0.25
        assert all(m.role != "assistant" or "x" != m.content[0].to_dict().get("text") for m in
                   point.state.conversation.messages)  # fmt: skip
        reopen(folder, point, ScriptedProvider([]), writer).close()
