"""A session a person drives (human mode): made with PersonAtKeyboard, logged like any session, resumed only by a
front end with a person at it, handed to a model by resuming or branching it with a provider."""

from __future__ import annotations

import pytest
from session_helpers import SCRIPT

from workbench.session.log import read_log
from workbench.session.loop import LoopState
from workbench.session.service import PersonAtKeyboard, Session
from workbench.session.specs import ProviderSpec, SessionUsageError, make_limits

PERSONS = "# the person's kernel\n"


def a_persons_session(root) -> Session:
    """A person's session that edited solution.py and ended (interrupted: resumable), as leaving the app ends it."""
    session = Session.new("scale_add", set(), PersonAtKeyboard(), make_limits(20), "interpret", root)
    loop = session.attach()
    loop.take_over()
    loop.start(paused=True)
    while loop.status != LoopState.TAKEN_OVER:
        loop.wait(0.01)
    loop.human_edit(PERSONS)
    loop.stop()
    assert loop.wait(30) == "interrupted"
    session.close()
    return session


def test_a_persons_session_is_logged_without_a_model(fixture_root, tmp_path):
    folder = a_persons_session(tmp_path).folder
    events = read_log(folder / "events.jsonl").events
    assert (events[0].provider, events[0].model) == ("human", "person")
    assert [e.action for e in events if e.kind == "human"] == ["takeover", "edit"]
    assert not any(e.kind.startswith("model_") for e in events)


def test_resumed_with_no_provider_named_it_is_refused_and_left_as_it_was(fixture_root, tmp_path):
    folder = a_persons_session(tmp_path).folder
    before = (folder / "events.jsonl").read_bytes()
    with pytest.raises(SessionUsageError, match="driven by a person: name a provider"):
        Session.resume(folder)
    with pytest.raises(SessionUsageError, match="driven by a person"):
        Session.branch(folder, 0)
    assert (folder / "events.jsonl").read_bytes() == before


def test_resumed_by_a_person_or_with_a_model_it_goes_on_with_the_persons_work(fixture_root, tmp_path):
    folder = a_persons_session(tmp_path).folder
    again = Session.resume(folder, PersonAtKeyboard())
    assert again.setup.provider.name == "human" and (folder / "work" / "solution.py").read_text() == PERSONS
    again.close()
    model = Session.resume(folder, ProviderSpec("scripted", script=SCRIPT))
    assert model.setup.provider.name == "scripted" and (folder / "work" / "solution.py").read_text() == PERSONS
    assert model.run() == "submitted"
    resumed = [e for e in read_log(folder / "events.jsonl").events if e.kind == "session_resumed"]
    assert [r.provider for r in resumed] == ["human", "scripted"]


def test_a_persons_session_branched_to_a_model(fixture_root, tmp_path):
    folder = a_persons_session(tmp_path).folder
    branch = Session.branch(folder, 0, provider=ProviderSpec("scripted", script=SCRIPT), root=tmp_path / "branches")
    assert branch.start_event.provider == "scripted" and branch.start_event.parent["session"] == str(folder)
    branch.close()


def test_workbench_run_human_makes_the_session_and_says_where(fixture_root, tmp_path, capsys):
    from workbench.cli.main import main

    assert main(["run", "scale_add", "--human", "--sessions", str(tmp_path), "--mode", "interpret"]) == 0
    printed = capsys.readouterr().out.strip()
    [folder] = [p.parent for p in tmp_path.glob("*/events.jsonl")]
    assert printed.startswith(f"session {folder} ") and "then o and r" in printed
    events = read_log(folder / "events.jsonl").events
    assert events[0].provider == "human" and not any(e.kind == "session_end" for e in events)
    again = Session.resume(folder, PersonAtKeyboard())  # the lock was given back: the app can drive it
    again.close()


def test_workbench_run_human_with_a_provider_is_a_usage_error(fixture_root, tmp_path, capsys):
    from workbench.cli.main import main

    code = main(["run", "scale_add", "--human", "--provider", "scripted", "--sessions", str(tmp_path)])
    error = capsys.readouterr().err.strip()
    assert code == 2 and "--human is a session with no model" in error and "\n" not in error
    assert not list(tmp_path.iterdir())
