"""The demo sessions: the scripts benchmarks/demo_scripts.py writes from the ladders (valid for the real tools, the
unguided ones blind to the guidance, the guided ones climbing the ladder and citing each level's items), the
person's session of benchmarks/human_demo.py, and benchmarks/record_demos.py, which replaces a sessions folder only
once every demo submitted."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # the demo modules import one another as scripts do

import demo_scripts  # noqa: E402
import human_demo  # noqa: E402
import record_demos  # noqa: E402

from workbench.guidance import load_guidance  # noqa: E402
from workbench.harness import EvalOptions, evaluate  # noqa: E402
from workbench.session.log import read_log  # noqa: E402
from workbench.session.specs import find_script  # noqa: E402
from workbench.session.tool_args import check_arguments  # noqa: E402
from workbench.session.tool_specs import tool_specs  # noqa: E402
from workbench.tasks import load_task  # noqa: E402

ITEM_ID = re.compile(r"\bL[1-3]\.\d+\b")
ITEM_OR_LEVEL = re.compile(r"\bL[1-3](?:\.\d+)?\b")  # "L2.1", or a level named alone ("L2:")
TASKS = [story.task for story in demo_scripts.STORIES]


def script_of(task: str, condition: str) -> list[dict]:
    return json.loads((demo_scripts.SCRIPTS / f"{task}_{condition}.json").read_text())


def played(turns: list[dict]) -> tuple[list[dict], list[str]]:
    """The script's tool calls in order, and solution.py as each evaluate saw it (writes and edits applied)."""
    calls, evaluated, files = [], [], {}
    for turn in turns:
        for block in turn["content"]:
            if block["type"] != "tool_use":
                continue
            calls.append(block)
            args = block["input"]
            if block["name"] == "write_file":
                files[args["path"]] = args["content"]
            elif block["name"] == "edit_file":
                assert files[args["path"]].count(args["old"]) == 1, f"an edit whose text is not found once: {args}"
                files[args["path"]] = files[args["path"]].replace(args["old"], args["new"])
            elif block["name"] == "evaluate":
                evaluated.append(files["solution.py"])
    return calls, evaluated


def test_the_committed_scripts_are_what_the_ladders_give(capsys):
    assert demo_scripts.main(["--check"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("condition", ["unguided", "guided"])
def test_every_tool_call_fits_the_real_tools_and_the_script_ends_on_a_final_submit(task, condition):
    specs = {spec.name: spec for spec in tool_specs(load_task(task, REPO))}
    calls, _ = played(script_of(task, condition))
    for call in calls:
        check_arguments(specs[call["name"]], call["input"])  # raises on a call the real tools would refuse
    assert len({call["id"] for call in calls}) == len(calls)
    assert (calls[-1]["name"], calls[-1]["input"]) == ("submit", {"final": True})
    assert not any(turn.get("usage") or turn.get("stop_reason") for turn in script_of(task, condition))


@pytest.mark.parametrize("task", TASKS)
def test_an_unguided_script_never_reads_or_cites_the_guidance(task):
    text = json.dumps(script_of(task, "unguided"))
    assert ITEM_OR_LEVEL.findall(text) == [] and "GUIDANCE" not in text


@pytest.mark.parametrize("task", TASKS)
def test_an_unguided_script_evaluates_the_plain_rung_then_a_tweak_that_keeps_it(task):
    plain = demo_scripts.rung_source(task, "plain")
    _, evaluated = played(script_of(task, "unguided"))
    assert evaluated[0] == plain and len(evaluated) == 2 and evaluated[1] != plain
    story = next(s for s in demo_scripts.STORIES if s.task == task)
    assert evaluated[1] == plain.replace(*story.tweak)


@pytest.mark.parametrize("task", TASKS)
def test_a_guided_script_climbs_the_ladder_citing_the_items_of_each_level(task):
    turns = script_of(task, "guided")
    calls, evaluated = played(turns)
    assert calls[0]["input"] == {"path": "GUIDANCE.md"}
    assert evaluated == [demo_scripts.rung_source(task, rung) for rung in demo_scripts.RUNGS]
    items = load_guidance(REPO / "guidance" / task / "guidance.toml")
    climbing = [t for t in turns if any(b.get("name") == "evaluate" for b in t["content"])]
    for level, turn in enumerate(climbing):  # plain cites nothing, then L1, L2, L3
        cited = set(ITEM_ID.findall(turn["content"][0]["text"]))
        assert cited == {item.id for item in items if item.level == level}, (level, cited)
    design = next(c["input"]["content"] for c in calls if c["input"].get("path") == "DESIGN.md")
    assert set(ITEM_ID.findall(design)) == {item.id for item in items}


def test_the_app_finds_both_scripts_of_each_demo_task():
    for task in TASKS:
        assert find_script(task, {1, 2, 3}, [demo_scripts.SCRIPTS]).name == f"{task}_guided.json"
        assert find_script(task, set(), [demo_scripts.SCRIPTS]).name == f"{task}_unguided.json"


def test_the_solutions_no_ladder_rung_covers_pass_in_interpret_mode(tmp_path):
    """The rungs and experts are checked by tests/test_suite_interpret.py; the tweaks and the person's tuning here."""
    derived = [(task, played(script_of(task, "unguided"))[1][1]) for task in TASKS]
    derived += [(human_demo.TASK, s.text) for s in human_demo.steps() if s.action == "edit"][-1:]
    for task, source in derived:
        path = tmp_path / f"{task}.py"
        path.write_text(source)
        result = evaluate(load_task(task, REPO), path, EvalOptions(mode="interpret", seeds=1, timeout_s=300))
        assert result.correct, (task, [w.summary() for w in result.workloads], result.error)


# -- the recorder, on the fixture task (its evals are quick) ---------------------------------------------------------


def fixture_demos(script: Path) -> list[record_demos.Demo]:
    fixture = json.loads((FIXTURES / "scripts" / "scale_add.json").read_text())
    _, evaluated = played(fixture)
    # the person's last step is a final submission ("finish"): it ends the session, as the real demo's does
    person = (human_demo.Step("edit", evaluated[-1]), human_demo.Step("evaluate"), human_demo.Step("note", "tail"),
              human_demo.Step("finish"))  # fmt: skip
    return [record_demos.Demo("scale_add", "unguided", script), record_demos.Demo("scale_add", "human", steps=person)]


def test_the_recorder_replaces_a_relative_out_once_every_session_submitted(fixture_root, tmp_path, monkeypatch,
                                                                          capsys):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "relsess" / "old-example").mkdir(parents=True)
    results = record_demos.record_all(fixture_demos(FIXTURES / "scripts" / "scale_add.json"), "interpret",
                                      Path("relsess"))  # fmt: skip
    assert [r.problems for r in results] == [(), ()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["relsess"]  # nothing staged or set aside is left
    scripted, person = (read_log(r.folder / "events.jsonl").events for r in results)
    assert sorted(p.name for p in (tmp_path / "relsess").iterdir()) == sorted(r.folder.name for r in results)
    assert scripted[0].provider == "scripted" and scripted[-1].reason == "submitted"
    assert person[0].provider == "human" and [e.action for e in person if e.kind == "human"] == [
        "takeover", "edit", "evaluate", "note", "submit"]  # fmt: skip
    rows = record_demos.table(results, "interpret").splitlines()
    assert rows[0].split() == ["session", "task", "condition", "turns", "evals", "best", "speedup"]
    assert [row.split()[2:] for row in rows[1:]] == [["unguided", "5", "3", "untimed"], ["human", "0", "2", "untimed"]]
    # a guided demo that ends on its unguided twin's solution.py tells no story: refused
    twins = [results[0], record_demos.Recorded(record_demos.Demo("scale_add", "guided"), results[0].folder, ())]
    assert [r.problems for r in record_demos._same_as_unguided(twins)] == [(), ("its solution.py is the unguided "
                                                                              "demo's",)]  # fmt: skip


def test_the_recorder_leaves_out_as_it_was_when_a_session_falls_short(fixture_root, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kept = tmp_path / "relsess" / "old-example"
    kept.mkdir(parents=True)
    (kept / "events.jsonl").write_text("kept\n")
    short = tmp_path / "short.json"  # reads the template, then has nothing left to say: no submission
    short.write_text(json.dumps([{"content": [{"type": "tool_use", "id": "t1", "name": "read_file",
                                               "input": {"path": "solution.py"}}]}]))  # fmt: skip
    demos = fixture_demos(short)[:1]
    results = record_demos.record_all(demos, "interpret", Path("relsess"))
    assert "no correct submission" in results[0].problems and any("not submitted" in p for p in results[0].problems)
    assert (kept / "events.jsonl").read_text() == "kept\n" and [p.name for p in kept.parent.iterdir()] == [kept.name]
    [staging] = [p for p in tmp_path.iterdir() if p.name.startswith(".relsess.recording-")]
    assert [p.name for p in staging.iterdir()] == [results[0].folder.name]
    assert "problem: no correct submission" in record_demos.table(results, "interpret")


@pytest.mark.parametrize(("argv", "says"), [
    (["--mode", "interpret", "--out", "."], "names a folder to replace"),
    (["--mode", "cuda", "--out", "relsess"], "no CUDA GPU here"),
])  # fmt: skip
def test_bad_usage_is_one_line_and_records_nothing(argv, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(record_demos, "detect_session_mode", lambda: "interpret")
    assert record_demos.main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert says in error and "\n" not in error and list(tmp_path.iterdir()) == []


def test_a_real_demo_records_end_to_end_into_a_relative_folder(tmp_path, monkeypatch):
    """One of the five as the H200 run records it (its bash call included), in interpret mode: untimed."""
    monkeypatch.chdir(tmp_path)
    [demo] = [d for d in record_demos.demos() if (d.task, d.condition) == ("sliding_window_max", "unguided")]
    [result] = record_demos.record_all([demo], "interpret", Path("examples"))
    assert result.problems == () and result.folder.parent == Path("examples")
    events = read_log(result.folder / "events.jsonl").events
    assert [e.name for e in events if e.kind == "tool_result" and e.name == "bash"] == ["bash"]
    assert [e.result["correct"] for e in events if e.kind in ("eval_result", "submission")] == [True, True, True]
