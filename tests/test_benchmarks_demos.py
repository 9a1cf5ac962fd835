"""The demo sessions' scripts, which benchmarks/demo_scripts.py writes from the ladders: valid for the real tools,
the unguided ones blind to the guidance, the guided ones climbing the ladder and citing each level's items."""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # the demo modules import one another as scripts do

import demo_scripts  # noqa: E402

from workbench.guidance import load_guidance  # noqa: E402
from workbench.harness import EvalOptions, evaluate  # noqa: E402
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
    """The rungs and experts are checked by tests/test_suite_interpret.py; the tweaks here."""
    derived = [(task, played(script_of(task, "unguided"))[1][1]) for task in TASKS]
    for task, source in derived:
        path = tmp_path / f"{task}.py"
        path.write_text(source)
        result = evaluate(load_task(task, REPO), path, EvalOptions(mode="interpret", seeds=1, timeout_s=600))
        assert result.correct, (task, [w.summary() for w in result.workloads], result.error)
