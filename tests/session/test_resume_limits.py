"""A session that ran into a limit: its end says which one, and a resume goes on only past it (more turns, a higher
cost limit); a wall clock is one run's own. Scripted models on the fixture task, priced through a prices file."""

from __future__ import annotations

import pytest

from workbench import cli
from workbench.agent.scripted import ScriptedProvider, ScriptedTurn
from workbench.session.events import SessionEnd, SessionResumed
from workbench.session.log import read_log
from workbench.session.service import Session
from workbench.session.specs import make_limits
from workbench.session.store import NotResumable

USAGE = {"input_tokens": 10, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}


def talker(turns: int, model: str = "scripted", start_at: int = 0) -> ScriptedProvider:
    script = [ScriptedTurn([{"type": "text", "text": f"thinking {i}"}], usage=USAGE) for i in range(turns)]
    return ScriptedProvider(script, model=model, start_at=start_at)


def _ends(folder) -> list[SessionEnd]:
    return [e for e in read_log(folder / "events.jsonl").events if isinstance(e, SessionEnd)]


def test_a_session_out_of_turns_goes_on_only_with_more_turns(fixture_root, tmp_path):
    session = Session.new("scale_add", set(), talker(6), make_limits(2), "interpret", tmp_path)
    assert session.run() == "budget"
    folder = session.folder
    assert _ends(folder)[-1].limit == "turns"
    with pytest.raises(NotResumable, match="2 of its 2 turns spent; resume it with --budget above 2"):
        Session.resume(folder, talker(6, start_at=2))
    with pytest.raises(NotResumable, match="--budget above 2"):
        Session.resume(folder, talker(6, start_at=2), raised={"budget": 2})
    resumed = Session.resume(folder, talker(6, start_at=2), raised={"budget": 4})
    assert resumed.run() == "budget"
    assert _ends(folder)[-1].turns == 4 and _ends(folder)[-1].limit == "turns"
    (resume,) = [e for e in read_log(folder / "events.jsonl").events if isinstance(e, SessionResumed)]
    assert resume.limits == {"budget": 4}
    with pytest.raises(NotResumable, match="4 of its 4 turns spent"):  # the raised budget is the session's now
        Session.resume(folder, talker(6, start_at=4))
    for turn, budget in ((4, 4), (1, 2)):  # a branch takes the limits in force at its turn
        branched = Session.branch(folder, turn, provider=talker(6, start_at=turn), root=tmp_path / "branches")
        assert branched.setup.limits.budget == budget
        branched.close()


def test_a_session_at_its_cost_limit_goes_on_only_with_a_higher_limit(fixture_root, tmp_path, monkeypatch):
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."dear"]\ninput = 100000.0\noutput = 0\n')  # 10 input tokens a turn: $1.00
    monkeypatch.setenv("WORKBENCH_PRICES", str(prices))
    session = Session.new("scale_add", set(), talker(8, "dear"), make_limits(8, cost_usd=2.0), "interpret", tmp_path)
    assert session.run() == "budget"
    folder = session.folder
    end = _ends(folder)[-1]
    assert end.limit == "cost" and end.turns == 2 and end.cost == pytest.approx(2.0)
    with pytest.raises(NotResumable, match=r"at its cost limit \(\$2.0\); resume it with --max-cost above \$2.0000"):
        Session.resume(folder, talker(8, "dear", start_at=2))
    resumed = Session.resume(folder, talker(8, "dear", start_at=2), raised={"cost_limit_usd": 3.5})
    assert resumed.run() == "budget"
    end = _ends(folder)[-1]
    assert end.limit == "cost" and end.turns == 4 and end.cost == pytest.approx(4.0)  # every turn paid, both runs


def test_the_resume_command_takes_the_raised_limits_and_refuses_bad_ones(fixture_root, tmp_path, capsys):
    session = Session.new("scale_add", set(), talker(3), make_limits(1), "interpret", tmp_path)
    assert session.run() == "budget"
    assert cli.main(["resume", str(session.folder), "--budget", "0"]) != 0
    assert "--budget must be above 0, not 0" in capsys.readouterr().err
    assert cli.main(["resume", str(session.folder)]) != 0
    assert "resume it with --budget above 1" in capsys.readouterr().err
