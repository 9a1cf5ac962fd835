"""The loop's controls with the scripted provider, on the fixture task in the interpreter."""

import threading

from session_helpers import Recorder, make_loop, task  # noqa: F401

from workbench.agent.conversation import ToolResultBlock
from workbench.agent.scripted import ScriptedTurn
from workbench.session.events import SCHEMA_VERSION
from workbench.session.history import complete_prefix, rebuild
from workbench.session.log import read_log
from workbench.session.loop import LoopState


def text(t):
    return {"type": "text", "text": t}


def bash(i, command):
    return {"type": "tool_use", "id": f"t{i}", "name": "bash", "input": {"command": command}}


def test_a_scripted_session_edits_evaluates_and_submits(make_loop):  # noqa: F811
    loop, folder, rec = make_loop()
    loop.start()
    assert loop.wait(timeout=300) == "submitted"
    kinds = rec.kinds()
    assert kinds.count("turn_end") == 5 and kinds[-1] == "session_end"
    evals = [e for e in rec.events if e.kind == "eval_result"]
    assert [e.result["correct"] for e in evals] == [False, True]
    assert evals[0].result["workloads"][0]["failure"] == "unwritten"
    (submission,) = [e for e in rec.events if e.kind == "submission"]
    assert submission.result["correct"] and submission.final
    # the log alone rebuilds the conversation the loop held
    events = read_log(folder / "events.jsonl").events
    assert [m.to_dict() for m in rebuild(events).conversation.messages] == [
        m.to_dict() for m in loop.state.conversation.messages
    ]
    assert events[0].scripted is True and events[0].version == SCHEMA_VERSION
    assert (folder / "work" / "DESIGN.md").exists()


def test_step_runs_one_turn_then_pauses_and_run_continues(make_loop):  # noqa: F811
    loop, _, rec = make_loop()
    loop.start(paused=True)
    assert loop.status == LoopState.PAUSED
    loop.step()
    rec.wait_for(lambda e: e.kind == "human" and e.action == "pause")
    assert rec.kinds().count("turn_end") == 1 and loop.status == LoopState.PAUSED
    loop.step()
    rec.wait_for(lambda e: e.kind == "turn_end" and e.turn == 2)
    rec.wait_for(lambda e: e.kind == "human" and e.action == "pause" and e.turn == 2)
    loop.run()
    assert loop.wait(timeout=300) == "submitted"


def test_pause_takes_effect_after_the_current_turn(make_loop):  # noqa: F811
    loop, _, rec = make_loop()
    loop.start()
    loop.pause()
    rec.wait_for(lambda e: e.kind == "human" and e.action == "pause")
    assert loop.status == LoopState.PAUSED
    turns = rec.kinds().count("turn_end")
    assert turns >= 1
    loop.stop()
    assert loop.wait(timeout=60) == "interrupted"
    assert rec.kinds().count("turn_end") == turns


def test_interrupt_during_the_model_stream_keeps_a_valid_conversation(make_loop):  # noqa: F811
    slow = ScriptedTurn([text("x" * 2000)], delay_s=0.05)
    loop, folder, rec = make_loop([slow, ScriptedTurn([text("done")])])
    deltas = threading.Event()
    # set before start: on a loaded machine the loop can read its callbacks and stream the whole slow turn before
    # a hook set after start() takes effect, and the interrupt would then land after the stream
    loop.callbacks.on_delta = lambda d: deltas.set()
    loop.start()
    assert deltas.wait(30)
    loop.interrupt()
    event = rec.wait_for(lambda e: e.kind == "interrupt")
    assert event.during == "model" and 0 < len(event.partial_text) < 2000
    rec.wait_for(lambda e: e.kind == "human" and e.action == "pause")
    messages = loop.state.conversation.messages
    assert messages[-1].role == "user" and len(messages) == 1  # nothing half-said was kept
    loop.stop()
    assert loop.wait(timeout=30) == "interrupted"
    assert rebuild(complete_prefix(read_log(folder / "events.jsonl").events)).turn == 0


def test_interrupt_during_a_long_bash_command(make_loop):  # noqa: F811
    turns = [ScriptedTurn([text("wait"), bash(1, "sleep 60"), bash(2, "echo never")])]
    loop, folder, rec = make_loop(turns)
    loop.start()
    rec.wait_for(lambda e: e.kind == "tool_call")
    loop.interrupt()
    end = rec.wait_for(lambda e: e.kind == "turn_end", timeout=20)
    results = [b for b in end.user_message["content"] if b["type"] == "tool_result"]  # then the turn counter
    assert [r["tool_use_id"] for r in results] == ["t1", "t2"]  # every tool_use has its result
    assert "interrupted" in results[0]["content"] and "not run" in results[1]["content"]
    assert any(e.kind == "interrupt" and e.during == "tool" for e in rec.events)
    loop.stop()
    assert loop.wait(timeout=30) == "interrupted"
    resumable = rebuild(complete_prefix(read_log(folder / "events.jsonl").events))
    last = resumable.conversation.messages[-1]
    answered = [b.tool_use_id for b in last.content if isinstance(b, ToolResultBlock)]
    assert resumable.turn == 1 and last.role == "user" and answered == ["t1", "t2"]  # both tool_use ids answered


def test_take_over_edit_evaluate_hand_back_and_the_agent_sees_the_diff(make_loop, task):  # noqa: F811
    script = [ScriptedTurn([text("first"), bash(1, "true")]), ScriptedTurn([text("second"), bash(2, "true")]),
              ScriptedTurn([text("third"), bash(3, "true")])]  # fmt: skip
    requests = []
    loop, _, rec = make_loop(script, budget=3)
    original = loop.provider.complete

    def spy(request, *args, **kwargs):
        requests.append(request)
        return original(request, *args, **kwargs)

    loop.provider.complete = spy
    loop.start(paused=True)
    loop.take_over()
    loop.step()
    rec.wait_for(lambda e: e.kind == "human" and e.action == "takeover")
    assert loop.status == LoopState.TAKEN_OVER and requests == []
    loop.human_edit(task.expert_path.read_text())
    result = loop.human_evaluate(["tiny"])
    assert result.correct
    loop.human_submit()
    loop.note("try a bigger block")
    loop.hand_back("I wrote a working kernel for you")
    loop.run()
    rec.wait_for(lambda e: e.kind == "turn_end")
    first = requests[0].messages[-1]
    sent = "".join(b.text for b in first.content if hasattr(b, "text"))
    assert "A person took over" in sent and "+@triton.jit" in sent and "working kernel" in sent
    assert "try a bigger block" in sent
    kinds = [e.action for e in rec.events if e.kind == "human"]
    assert kinds[:6] == ["takeover", "edit", "evaluate", "submit", "note", "handback"]
    assert loop.wait(timeout=60) == "budget"


def test_the_budget_ends_the_session(make_loop):  # noqa: F811
    loop, _, rec = make_loop([ScriptedTurn([text(str(i)), bash(i, "true")]) for i in range(5)], budget=2)
    loop.start()
    assert loop.wait(timeout=60) == "budget"
    assert rec.kinds().count("turn_end") == 2 and rec.events[-1].reason == "budget"


def test_a_provider_error_ends_the_session_with_error(make_loop):  # noqa: F811
    loop, _, rec = make_loop([ScriptedTurn([text("one"), bash(1, "true")])])  # the script runs dry on turn 2
    loop.start()
    assert loop.wait(timeout=60) == "error"
    assert any(e.kind == "error" and "no response left" in e.message for e in rec.events)


def test_no_secret_reaches_the_log_the_workspace_or_bash(make_loop, monkeypatch):  # noqa: F811
    secret = "sk-ant-secret-never-logged-42"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    turns = [ScriptedTurn([text("env"), bash(1, "env; echo key=$ANTHROPIC_API_KEY; env > env.txt")])]
    loop, folder, rec = make_loop(turns, budget=1)
    loop.start()
    assert loop.wait(timeout=60) == "budget"
    result = next(e for e in rec.events if e.kind == "tool_result")
    assert "key=\n" in result.text or result.text.count("key=") == 1
    for path in folder.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path


def test_a_note_left_before_a_stop_reaches_the_agent_after_a_resume(make_loop, task):  # noqa: F811
    from workbench.agent.scripted import ScriptedProvider
    from workbench.session.log import SessionLog
    from workbench.session.store import SessionSetup, build_loop

    loop, folder, rec = make_loop([ScriptedTurn([text("one"), bash(1, "true")])], budget=1)
    loop.start(paused=True)
    loop.note("use BLOCK=2048")
    loop.stop()
    assert loop.wait(timeout=30) == "interrupted"
    loop.log.close()  # the first process is done with the session: one writer at a time
    events = read_log(folder / "events.jsonl").events
    state = rebuild(complete_prefix(events))
    assert state.pending_notes == ["use BLOCK=2048"]
    setup = SessionSetup(task, set(), ScriptedProvider([ScriptedTurn([text("ok"), bash(2, "true")])]),
                         loop.limits, "interpret")  # fmt: skip
    log = SessionLog(folder / "events.jsonl", next_seq=events[-1].seq + 1)
    resumed = build_loop(setup, folder, log, state)
    resumed.start()
    assert resumed.wait(timeout=60) == "budget"
    events = read_log(folder / "events.jsonl").events
    delivered = [e for e in events if e.kind == "human" and e.action == "note_delivered"]
    assert [e.text for e in delivered] == ["use BLOCK=2048"]
    assert "use BLOCK=2048" in resumed.state.conversation.messages[0].content[-1].text


def test_an_edit_saved_outside_is_recorded_with_its_diff(make_loop, task):  # noqa: F811
    loop, _, rec = make_loop([ScriptedTurn([text("one"), bash(1, "true")])], budget=1)
    loop.start(paused=True)
    loop.take_over()
    loop.step()
    rec.wait_for(lambda e: e.kind == "human" and e.action == "takeover")
    source = task.expert_path.read_text()
    (loop.work / "solution.py").write_text(source)  # an editor outside the app saved it
    loop.human_edit(source)
    edit = next(e for e in rec.events if e.kind == "human" and e.action == "edit")
    assert "+@triton.jit" in edit.diff
    loop.stop()
    assert loop.wait(timeout=30) == "interrupted"


def test_the_persons_edits_are_never_seen_half_written_and_a_save_already_on_disk_is_not_written_again(make_loop):  # noqa: F811
    """The app's watcher reads solution.py whenever it is written, the app's own writes included: a reader must
    never find it truncated (read as a save of an empty file, that was recorded as an edit and evaluated), and a
    save an editor already made is recorded, not rewritten (which would be a new save to the watcher)."""
    loop, _, rec = make_loop([ScriptedTurn([text("only"), bash(1, "true")])], budget=1)
    loop.start(paused=True)
    loop.take_over()
    loop.step()
    rec.wait_for(lambda e: e.kind == "human" and e.action == "takeover")
    versions = ["# a\n" + "x = 1\n" * 40_000, "# b\n" + "y = 2\n" * 40_000]  # 240 KB: a write takes a while
    path = loop.work / "solution.py"
    loop.human_edit(versions[1])  # the template is gone before the reader starts
    seen, done = set(), threading.Event()

    def read_while_written():
        while not done.is_set():
            seen.add(path.read_text()[:4])

    reader = threading.Thread(target=read_while_written)
    reader.start()
    try:
        for i in range(30):
            loop.human_edit(versions[i % 2])
    finally:
        done.set()
        reader.join()
    assert seen and seen <= {"# a\n", "# b\n"}  # never "" nor a part of a line
    assert len([e for e in rec.events if e.kind == "human" and e.action == "edit"]) == 31

    saved = "# saved by an editor\n"
    path.write_text(saved)
    inode = path.stat().st_ino
    loop.human_edit(saved)
    loop.human_edit(saved)  # the same save picked up twice (the editor's own hook and the watcher)
    assert path.stat().st_ino == inode and path.read_text() == saved
    edits = [e for e in rec.events if e.kind == "human" and e.action == "edit"]
    assert len(edits) == 32 and "+# saved by an editor" in edits[-1].diff and "-# b" in edits[-1].diff
    loop.stop()
    loop.wait(timeout=60)
