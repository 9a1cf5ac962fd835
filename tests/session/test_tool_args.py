"""Tool arguments are checked against each tool's schema before it runs: what the model got wrong is an error
result saying what was expected, never an exception that ends the session, and nothing is coerced."""

import json
import threading

import pytest
from conftest import REPO

from workbench.session.tools import TOOL_SPECS, ToolBox, tool_specs
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task

NAMES = json.dumps(["llama3-8b-prefill", "deepseek-v3-prefill", "llama3-70b-prefill", "llama3-405b-prefill", "tiny",
                    "tiny-ragged"])  # fmt: skip
SOLUTION = {"path": "solution.py"}


@pytest.fixture
def box(tmp_path):
    task = load_task("rmsnorm_residual", REPO)
    create_workspace(task, tmp_path / "work", set())
    return ToolBox(task, tmp_path / "work", "interpret")


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("evaluate", {"workloads": ["tiny-raged"]},
         f'workloads: expected a list of these names: {NAMES}, got the list ["tiny-raged"]'),
        ("evaluate", {"workloads": "tiny"}, "workloads: expected a list of these names"),
        ("profile", {"workload": "Tiny"}, f'workload: expected one of these names: {NAMES}, got the string "Tiny"'),
        ("bash", {"command": 42}, "command: expected a non-empty string, got the integer 42"),
        ("bash", {"command": "true", "timeout_s": "30"},
         'timeout_s: expected a number above 0 and at most 900, got the string "30"'),
        ("bash", {"command": "true", "timeout_s": -1}, "timeout_s: expected a number above 0"),
        ("bash", {"command": "true", "timeout_s": True}, "timeout_s: expected a number"),
        ("edit_file", {**SOLUTION, "old": 7, "new": "x"}, "old: expected a non-empty string, got the integer 7"),
        ("edit_file", {**SOLUTION, "old": "", "new": "x"}, 'old: expected a non-empty string, got the string ""'),
        ("edit_file", {**SOLUTION, "old": "a", "new": "b", "replace_all": "yes"}, "replace_all: expected a boolean"),
        ("submit", {"final": "false"}, 'final: expected a boolean (true or false, not a string), got the string "'),
        ("read_file", {**SOLUTION, "offset": 0}, "offset: expected an integer at least 1, got the integer 0"),
        ("read_file", {**SOLUTION, "lines": 10}, "unknown argument 'lines' for read_file (its arguments: path, "),
        ("write_file", {"path": "notes.md"}, "missing argument 'content' for write_file"),
        ("list_files", {"path": None}, "path: expected a non-empty string, got null"),
    ],
)  # fmt: skip
def test_arguments_that_do_not_fit_are_refused_with_what_was_expected(box, name, args, message):
    outcome = box.execute(name, args, threading.Event())
    assert outcome.is_error and message in outcome.text, outcome.text
    assert outcome.eval_result is None and not outcome.submission and not outcome.final


def test_a_string_false_never_makes_a_final_submission(box):
    outcome = box.execute("submit", {"final": "false"}, threading.Event())
    assert outcome.is_error and not outcome.final and not outcome.submission


def test_arguments_that_are_not_an_object_are_refused(box):
    outcome = box.execute("bash", ["ls"], threading.Event())  # type: ignore[arg-type]
    assert outcome.is_error and "the arguments of bash must be a JSON object, got the list" in outcome.text


def test_a_workload_too_large_for_the_interpreter_is_an_error_result(box):
    outcome = box.execute("evaluate", {"workloads": ["llama3-8b-prefill"]}, threading.Event())
    assert outcome.is_error and "too large for the interpreter" in outcome.text


def test_an_integer_written_as_a_float_is_read_as_one(box):
    outcome = box.execute("read_file", {"path": "solution.py", "offset": 2.0, "limit": 1.0}, threading.Event())
    assert not outcome.is_error and outcome.text.startswith("     2\t")


def test_the_specs_name_the_tasks_workloads_and_refuse_unknown_arguments(box):
    specs = {spec.name: spec.input_schema for spec in tool_specs(box.task)}
    names = [w.name for w in box.task.workloads]
    assert specs["evaluate"]["properties"]["workloads"]["items"]["enum"] == names
    assert specs["profile"]["properties"]["workload"]["enum"] == names
    assert all(schema["additionalProperties"] is False for schema in specs.values())
    assert [spec.input_schema for spec in box.specs] == list(specs.values())
    default = {spec.name: spec.input_schema for spec in TOOL_SPECS}  # the task-independent specs: no names
    assert "enum" not in default["profile"]["properties"]["workload"]
    assert set(default) == set(specs)
