"""The Session service: new, open, resume, branch, run and watch, with the scripted provider on the fixture task."""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import shutil
import threading
from pathlib import Path

import pytest
from conftest import FIXTURE_ROOT, FIXTURES
from session_helpers import SCRIPT, Recorder, a_start

from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.session.events import Event, Files, Human, SessionStart, event_to_dict
from workbench.session.history import complete_turns, effective
from workbench.session.log import LogError, SessionLog, read_log
from workbench.session.loop import LoopCallbacks
from workbench.session.service import Session
from workbench.session.specs import ProviderSpec, ScriptMissing, SessionUsageError, make_limits
from workbench.session.store import NotResumable, repair_log
from workbench.session.watch import SessionWatch
from workbench.session.writer import LOCK_NAME, SessionBusy, Writer, holder
from workbench.tasks import load_task

SCRIPTED = ProviderSpec("scripted", script=SCRIPT)  # five turns: read, evaluate, evaluate, DESIGN.md, submit


def chatter(turns: int) -> ScriptedProvider:
    """A model that only talks: turns without tools or evals, each over at once (the loop nudges it on)."""
    return ScriptedProvider([ScriptedTurn([{"type": "text", "text": f"thinking {i}"}]) for i in range(turns)])


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A scripted session run by the service to its end (it submits at turn 5); copy it before changing it."""
    root = tmp_path_factory.mktemp("finished")
    with pytest.MonkeyPatch.context() as patch:  # fixture_root is a test's: this runs before it
        patch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
        session = Session.new("scale_add", set(), SCRIPTED, make_limits(20), "interpret", root)
        assert session.run() == "submitted"
    return session.folder


def copy_of(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "sessions" / folder.name
    shutil.copytree(folder, target)
    return target


def cut_after_turn(folder: Path, turn: int, torn: str = "") -> None:
    """As a kill leaves the log: complete up to `turn`, then the next turn's request and response (a turn cut short,
    paid for), then `torn`, a line the kill cut mid-write."""
    lines = (folder / "events.jsonl").read_text().splitlines(keepends=True)
    kinds = [(json.loads(line)["kind"], json.loads(line)["turn"]) for line in lines]
    end = kinds.index(("turn_end", turn))
    response = kinds.index(("model_response", turn + 1))
    (folder / "events.jsonl").write_text("".join(lines[: end + 1] + lines[end + 1 : response + 1]) + torn)


# -- new ---------------------------------------------------------------------------------------------------------
def test_new_makes_a_folder_with_workspace_and_log_and_run_returns_the_end_reason(fixture_root, tmp_path):
    session = Session.new("scale_add", set(), SCRIPTED, make_limits(20), "interpret", tmp_path / "sessions")
    assert session.folder.parent == tmp_path / "sessions" and (session.folder / "work" / "solution.py").exists()
    assert [e.kind for e in session.history] == ["session_start", "files"]
    start = session.start_event
    assert (start.provider, start.scripted, start.script) == ("scripted", True, str(SCRIPT.resolve()))
    assert holder(session.folder)["pid"] == os.getpid(), "the session holds its writer lock until it is closed"
    recorder = Recorder()
    assert session.run(LoopCallbacks(on_event=recorder)) == "submitted"
    assert recorder.kinds().count("turn_end") == 5 and holder(session.folder) is None


def test_new_refuses_before_making_anything(fixture_root, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    root = tmp_path / "sessions"
    with pytest.raises(ScriptMissing, match="needs a script"):
        Session.new("scale_add", set(), ProviderSpec("scripted"), make_limits(), "interpret", root)
    with pytest.raises(SessionUsageError, match="ANTHROPIC_API_KEY"):
        Session.new("scale_add", set(), ProviderSpec(), make_limits(), "interpret", root)
    unguided = dataclasses.replace(load_task("scale_add"), guidance_path=None)
    with pytest.raises(SessionUsageError, match="task scale_add has no guidance"):
        Session.new(unguided, {1}, SCRIPTED, make_limits(), "interpret", root)
    with pytest.raises(SessionUsageError, match="at least 1 turn"):
        make_limits(0)
    assert not root.exists()


# -- open --------------------------------------------------------------------------------------------------------
def test_open_reads_a_session_whose_writer_holds_the_lock(fixture_root, tmp_path):
    session = Session.new("scale_add", set(), SCRIPTED, make_limits(20), "interpret", tmp_path / "sessions")
    try:
        record = Session.open(session.folder)  # the lock is held: a reader neither waits nor is refused
        assert isinstance(record.start, SessionStart) and [e.kind for e in record.events] == ["session_start", "files"]
        assert record.turns == 0 and record.state.files["solution.py"] and not record.torn
        assert holder(session.folder)["pid"] == os.getpid()
    finally:
        session.close()


def test_open_reports_a_torn_last_line_and_the_folded_state(finished, tmp_path):
    folder = copy_of(finished, tmp_path)
    cut_after_turn(folder, 2, torn='{"seq": 99, "ti')
    record = Session.open(folder)
    assert record.torn and record.turns == 2 and record.state.turn == 2 and record.state.end is None
    with pytest.raises(LogError, match="no session log here"):
        Session.open(tmp_path / "nowhere")


# -- resume ------------------------------------------------------------------------------------------------------
def test_resume_goes_on_after_the_last_complete_turn_and_counts_the_cut_one(finished, tmp_path, fixture_root):
    folder = copy_of(finished, tmp_path)
    cut_after_turn(folder, 2, torn='{"seq": 99, "ti')
    (folder / "work" / "solution.py").write_text("# what the cut turn left\n")
    session = Session.resume(folder)  # the recorded script, after the two responses played in complete turns
    assert (session.resumed_from, session.torn) == (2, True)
    assert session.state.discarded_responses == 1, "the cut turn's response was paid for"
    resumed = session.history[-1]
    assert resumed.kind == "session_resumed" and resumed.from_turn == 2 and resumed.torn_line_dropped
    assert session.run() == "submitted"
    events = effective(read_log(folder / "events.jsonl").events)
    assert complete_turns(events) == 5 and sum(e.kind == "session_resumed" for e in events) == 1
    with pytest.raises(NotResumable, match="ended \\(submitted\\)"):
        Session.resume(folder)


def test_resume_puts_the_workspace_back_as_the_log_says(finished, tmp_path, fixture_root):
    folder = copy_of(finished, tmp_path)
    cut_after_turn(folder, 4)  # turn 4 wrote DESIGN.md; turn 5 (the submission) was cut
    (folder / "work" / "solution.py").write_text("# spoiled\n")
    session = Session.resume(folder)
    try:
        expected = Session.open(folder).state.files
        assert (folder / "work" / "solution.py").read_text() == expected["solution.py"] != "# spoiled\n"
        assert (folder / "work" / "DESIGN.md").read_text() == "One pass, BLOCK 1024.\n"
    finally:
        session.close()


def test_resume_is_refused_while_another_writer_holds_the_lock_and_changes_nothing(finished, tmp_path, fixture_root):
    folder = copy_of(finished, tmp_path)
    cut_after_turn(folder, 2)
    (folder / "work" / "solution.py").write_text("# the running agent's newest edit\n")
    log_before = (folder / "events.jsonl").read_bytes()
    other = Writer.claim(folder, "another run")
    try:
        with pytest.raises(SessionBusy) as refused:
            Session.resume(folder)
        line = str(refused.value)
        assert "\n" not in line and f"is being written by pid {os.getpid()} on " in line and "(another run)" in line
        assert (folder / "events.jsonl").read_bytes() == log_before
        assert (folder / "work" / "solution.py").read_text() == "# the running agent's newest edit\n"
    finally:
        other.release()
    Session.resume(folder).close()  # free again


def test_a_resume_without_its_script_finds_one_in_the_script_folders(finished, tmp_path, fixture_root):
    folder = copy_of(finished, tmp_path)
    cut_after_turn(folder, 2)
    lines = (folder / "events.jsonl").read_text().splitlines(keepends=True)
    start = json.loads(lines[0]) | {"script": str(tmp_path / "moved-away.json")}
    (folder / "events.jsonl").write_text(json.dumps(start) + "\n" + "".join(lines[1:]))
    with pytest.raises(ScriptMissing):
        Session.resume(folder)
    assert holder(folder) is None, "a refused resume gives the lock back"
    session = Session.resume(folder, ProviderSpec(script_dirs=(FIXTURES / "scripts",)))
    assert session.setup.provider.position == 2  # type: ignore[attr-defined]
    assert session.run() == "submitted"


# -- branch ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("turn", [0, 2])
def test_branch_at_turn_n_has_exactly_n_complete_turns(finished, tmp_path, fixture_root, turn):
    parent_before = (finished / "events.jsonl").read_bytes()
    branch = Session.branch(finished, turn, root=tmp_path / "branches")
    try:
        events = read_log(branch.folder / "events.jsonl").events
        assert branch.folder.parent == tmp_path / "branches"
        assert events[0].parent == {"session": str(finished), "turn": turn}
        assert complete_turns(effective(events)) == turn and branch.state.turn == turn
        assert [e.turn for e in events if e.kind == "turn_end"] == list(range(1, turn + 1))
        assert all(e.inherited for e in events if e.kind == "turn_end")
        assert branch.setup.provider.position == (turn and 2)  # type: ignore[attr-defined]
    finally:
        branch.close()
    assert (finished / "events.jsonl").read_bytes() == parent_before, "the parent is only read"


def test_a_branch_runs_on_from_its_turn_beside_its_parent(finished, tmp_path, fixture_root):
    parent = copy_of(finished, tmp_path)
    branch = Session.branch(parent, 3)
    assert branch.folder.parent == parent.parent
    assert branch.run() == "submitted"
    assert complete_turns(effective(read_log(branch.folder / "events.jsonl").events)) == 5


def test_a_branch_out_of_range_or_without_a_key_makes_nothing(finished, tmp_path, fixture_root, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    root = tmp_path / "branches"
    with pytest.raises(SessionUsageError, match="has 5 complete turns; cannot branch at turn 6"):
        Session.branch(finished, 6, root=root)
    with pytest.raises(SessionUsageError, match="OPENAI_API_KEY"):
        Session.branch(finished, 2, provider=ProviderSpec("openai"), root=root)
    assert not root.exists()


# -- the provider spec ---------------------------------------------------------------------------------------------
def test_an_override_keeps_the_recorded_model_only_for_the_same_provider():
    recorded = ProviderSpec.recorded(a_start(provider="anthropic", model="claude-x", base_url="http://proxy/"))
    assert recorded.overridden_by(None) == recorded
    same = ProviderSpec("anthropic", "claude-y", "http://proxy/")
    assert recorded.overridden_by(ProviderSpec(model="claude-y")) == same
    assert recorded.overridden_by(ProviderSpec("openai")) == ProviderSpec("openai")
    scripted = ProviderSpec.recorded(a_start(script=str(SCRIPT)))
    assert scripted.script == SCRIPT and scripted.make(played=3).position == 3  # type: ignore[attr-defined]
    assert ProviderSpec.recorded(a_start(script="/gone/script.json")).script is None


# -- watch -------------------------------------------------------------------------------------------------------
class Follower:
    """Iterates a watch in a thread, handing each event over as it comes."""

    def __init__(self, watch: SessionWatch) -> None:
        self.watch = watch
        self.events: queue.Queue[Event] = queue.Queue()
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()

    def _follow(self) -> None:
        for event in self.watch:
            self.events.put(event)

    def next(self, timeout: float = 10.0) -> Event:
        return self.events.get(timeout=timeout)

    def nothing_new(self, wait_s: float = 0.3) -> bool:
        try:
            self.events.get(timeout=wait_s)
        except queue.Empty:
            return True
        return False


def test_watch_yields_the_events_a_running_session_appends_until_its_end(fixture_root, tmp_path):
    session = Session.new("scale_add", set(), chatter(3), make_limits(3), "interpret", tmp_path / "sessions")
    follower = Follower(Session.watch(session.folder, poll_s=0.02, until_end=True))
    assert session.run() == "budget"
    follower.thread.join(10)
    assert not follower.thread.is_alive(), "until_end: the iteration ends at session_end"
    watched = list(follower.events.queue)
    written = read_log(session.folder / "events.jsonl").events
    assert [(e.seq, e.kind) for e in watched] == [(e.seq, e.kind) for e in written]
    assert watched[-1].kind == "session_end" and watched == written


def test_watch_waits_for_a_line_to_be_complete_and_stops_cleanly(tmp_path):
    log = SessionLog(tmp_path / "events.jsonl")  # a second writer: this process holds the lock, the watch never asks
    follower = Follower(Session.watch(tmp_path, poll_s=0.02))
    assert follower.nothing_new(), "no log yet: nothing to yield, and no error"
    log.append(a_start())
    assert isinstance(follower.next(), SessionStart)
    log.append(Files(turn=0, changed={"solution.py": "x = 1\n"}, deleted=[]))
    assert follower.next().kind == "files"
    line = json.dumps({"seq": 2, "time": 1.0, "turn": 0, "kind": "human", "action": "note", "text": "hi"}) + "\n"
    with open(tmp_path / "events.jsonl", "a") as out:  # a writer part way through a line
        out.write(line[:20])
        out.flush()
        assert follower.nothing_new()
        out.write(line[20:])
    note = follower.next()
    assert isinstance(note, Human) and note.text == "hi" and note.seq == 2
    follower.watch.stop()
    follower.thread.join(2)
    assert not follower.thread.is_alive(), "stop() ends a watch that is waiting"
    assert holder(tmp_path)["pid"] == os.getpid(), "the writer's lock was never disturbed"
    log.close()


def test_watch_drops_what_it_read_of_a_torn_line_that_a_resume_cut(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps(event_to_dict(a_start())) + "\n" + '{"seq": 1, "ti')  # killed mid-write
    follower = Follower(Session.watch(tmp_path, poll_s=0.02))
    assert follower.next().kind == "session_start" and follower.nothing_new()
    repair_log(path)  # what a resume does first: the torn line is cut
    note = {"seq": 1, "time": 1.0, "turn": 0, "kind": "human", "action": "note", "text": "on"}
    with open(path, "a") as out:
        out.write(json.dumps(note) + "\n")
    note = follower.next()
    assert isinstance(note, Human) and note.text == "on"
    follower.watch.stop()
    follower.thread.join(2)
    assert not (tmp_path / LOCK_NAME).exists(), "a watch makes no lock file"


# -- claim (the judge's way in) --------------------------------------------------------------------------------------
def test_claim_reads_under_the_lock_appends_and_is_refused_while_held(finished, tmp_path):
    folder = copy_of(finished, tmp_path)
    last = read_log(folder / "events.jsonl").events[-1].seq
    with Session.claim(folder, "judge") as held:
        assert held.record.state.end is not None and held.record.events[-1].seq == last
        with pytest.raises(SessionBusy, match=r"\(judge\)"):
            Session.claim(folder, "a second judge")
        logged = held.append(Human(turn=5, action="note", text="judged"))
    assert logged.seq == last + 1 and read_log(folder / "events.jsonl").events[-1].text == "judged"
    assert holder(folder) is None
    empty = tmp_path / "not-a-session"
    empty.mkdir()
    with pytest.raises(LogError, match="no session log here"):
        Session.claim(empty, "judge")
    assert list(empty.iterdir()) == [], "no lock file is left in a folder that holds no session"
