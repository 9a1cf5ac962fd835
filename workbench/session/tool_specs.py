"""The tools as the model sees them: names, descriptions and JSON schemas of their arguments.

`tool_specs(task)` names the task's workloads as an `enum`, so that the model is shown the names it may use and a
misspelt one is refused with the list; TOOL_SPECS is the same without a task (any string passes the schema there,
and the harness says which names exist). Every schema refuses arguments it does not name.
"""

from __future__ import annotations

from typing import Any

from workbench.agent.conversation import ToolSpec
from workbench.tasks import Task

DEFAULT_BASH_TIMEOUT_S, MAX_BASH_TIMEOUT_S = 120.0, 900.0
READ_LIMIT_LINES = 2000  # lines read_file shows at once unless given a limit

_PATH = {"type": "string", "minLength": 1, "description": "a path relative to the workspace (e.g. solution.py)"}


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _names(task: Task | None, description: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "description": description}
    if task is not None:
        schema["enum"] = [w.name for w in task.workloads]
    return schema


def tool_specs(task: Task | None = None) -> list[ToolSpec]:
    """The tool specs; with a task, its workload names are an enum in evaluate's and profile's schemas."""
    workload = _names(task, "a workload of the task (task.toml)")
    return [
        ToolSpec("read_file", f"Read a text file of your workspace, with line numbers (cat -n style: they match the "
                 f"line numbers of tracebacks). Shows up to {READ_LIMIT_LINES} lines from `offset` (the first line "
                 "is 1); says how many lines the file has and how to read the rest.",
                 _object({"path": _PATH,
                          "offset": {"type": "integer", "minimum": 1, "description": "first line to show (1-based)"},
                          "limit": {"type": "integer", "minimum": 1, "description": "how many lines to show"}},
                         ("path",))),
        ToolSpec("write_file", "Create or overwrite a file of your workspace with the given content.",
                 _object({"path": _PATH, "content": {"type": "string"}}, ("path", "content"))),
        ToolSpec("edit_file", "Replace an exact piece of text in a file (it must occur exactly once unless "
                 "replace_all is true). Shows the lines around the edit.",
                 _object({"path": _PATH, "old": {"type": "string", "minLength": 1}, "new": {"type": "string"},
                          "replace_all": {"type": "boolean"}}, ("path", "old", "new"))),
        ToolSpec("list_files", "List the files of your workspace (or of one folder in it), with their sizes.",
                 _object({"path": _PATH})),
        ToolSpec("bash", f"Run a bash command in your workspace (no network; default timeout "
                 f"{DEFAULT_BASH_TIMEOUT_S:g} s, at most {MAX_BASH_TIMEOUT_S:g}). A long output is shown as its "
                 "first and last lines, with the count of what was cut.",
                 _object({"command": {"type": "string", "minLength": 1},
                          "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_BASH_TIMEOUT_S}},
                         ("command",))),
        ToolSpec("evaluate", "Run the harness on solution.py: static checks, correctness and (on a GPU) timing. "
                 "Optionally only the named workloads. Failing workloads show the worst element (index, got, "
                 "expected, errors) and the mismatch count; timed ones their latency, speedup and SOL fraction.",
                 _object({"workloads": {"type": "array", "items": workload}})),
        ToolSpec("profile", "Profile solution.py's Triton kernels on one workload with Nsight Compute, where it is "
                 "installed: per kernel its time, memory bandwidth and FLOP rate against the device's, and what "
                 "limits it.",
                 _object({"workload": workload}, ("workload",))),
        ToolSpec("submit", "Submit solution.py: a full evaluation, recorded. With final=true (the default) the "
                 "session ends after this turn; with final=false you may keep improving and submit again.",
                 _object({"final": {"type": "boolean"}})),
    ]  # fmt: skip


TOOL_SPECS = tool_specs()
TOOL_NAMES = {spec.name for spec in TOOL_SPECS}
