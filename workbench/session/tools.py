"""The agent's tools: files, bash, evaluate, profile, submit — all confined to its workspace.

No tool call ends a session. Its arguments are checked against the tool's schema first (tool_args), and any
exception inside a tool becomes an error result the model reads, with the exception's type and message and never
our traceback (that is kept on the outcome for whoever debugs the workbench). Every result's text is valid UTF-8.
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.conversation import ToolSpec
from workbench.eval_feedback import compact_eval
from workbench.harness import EvalOptions, EvalResult, evaluate
from workbench.harness.runner import QUICK_TIMING, EvalUsageError
from workbench.session import file_tools
from workbench.session.bash import run_bash
from workbench.session.profile_tool import run_profile
from workbench.session.tool_args import ToolError, check_arguments
from workbench.session.tool_specs import DEFAULT_BASH_TIMEOUT_S, MAX_BASH_TIMEOUT_S, TOOL_NAMES, TOOL_SPECS, tool_specs
from workbench.session.tool_text import safe_text
from workbench.session.workspace import WorkspaceError
from workbench.tasks import Task, TaskFormatError

__all__ = ["DEFAULT_BASH_TIMEOUT_S", "MAX_BASH_TIMEOUT_S", "TOOL_NAMES", "TOOL_SPECS", "ToolBox", "ToolError",
           "ToolOutcome", "compact_eval", "tool_specs"]  # fmt: skip

# errors whose message is written for the person or agent who caused them: shown as they are
_SPOKEN = (ToolError, WorkspaceError, EvalUsageError, TaskFormatError)


@dataclass
class ToolOutcome:
    text: str
    is_error: bool = False
    eval_result: EvalResult | None = None
    submission: bool = False
    final: bool = False
    traceback: str | None = None  # an unexpected exception's traceback, for the workbench's developers, not the model


class ToolBox:
    def __init__(self, task: Task, work: Path, mode: str | None, eval_timeout_s: float = 300.0) -> None:
        self.task = task
        self.work = work
        self.mode = mode
        self.eval_timeout_s = eval_timeout_s
        self.specs: list[ToolSpec] = tool_specs(task)  # with the task's workload names as enums
        self._specs = {spec.name: spec for spec in self.specs}

    def execute(self, name: str, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        """Run one tool call; whatever happens inside, an outcome comes back (an error result at worst)."""
        try:
            outcome = self._run(name, args, cancel)
        except _SPOKEN as exc:
            outcome = ToolOutcome(f"error: {exc}", is_error=True)
        except Exception as exc:  # noqa: BLE001 - a tool never ends the session: the model reads what went wrong
            outcome = ToolOutcome(f"error: {name} failed: {type(exc).__name__}: {exc}", is_error=True,
                                  traceback=traceback.format_exc())  # fmt: skip
        outcome.text = safe_text(outcome.text)
        return outcome

    def _run(self, name: str, args: Any, cancel: threading.Event) -> ToolOutcome:
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None:
            raise ToolError(f"unknown tool {name!r}; the tools are {sorted(TOOL_NAMES)}")
        checked = check_arguments(spec, args)
        result: ToolOutcome = getattr(self, f"_tool_{name}")(checked, cancel)
        return result

    def _tool_read_file(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        return ToolOutcome(file_tools.read_file(self.work, args["path"], args.get("offset", 1), args.get("limit")))

    def _tool_write_file(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        return ToolOutcome(file_tools.write_file(self.work, args["path"], args["content"]))

    def _tool_edit_file(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        text = file_tools.edit_file(self.work, args["path"], args["old"], args["new"], args.get("replace_all", False))
        return ToolOutcome(text)

    def _tool_list_files(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        return ToolOutcome(file_tools.list_files(self.work, args.get("path")))

    def _tool_bash(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        command = args["command"]
        if "\x00" in command:
            raise ToolError("command: a command cannot hold a NUL character")
        timeout = float(args.get("timeout_s", DEFAULT_BASH_TIMEOUT_S))
        result = run_bash(command, self.work, timeout, cancel, gpu=self.mode == "cuda")
        return ToolOutcome(result.for_model(), is_error=result.exit_code != 0)

    def _evaluate(self, workloads: list[str] | None, cancel: threading.Event, submit: bool = False) -> EvalResult:
        """evaluate is quick (one seed, short timing, the visible workloads); submit keeps the full rigour and also
        checks the task's hidden workloads."""
        options = EvalOptions(mode=self.mode, workloads=workloads or None, timeout_s=self.eval_timeout_s,
                              cancel=cancel, sandbox_dir=self.work, hidden=submit)  # fmt: skip
        if not submit:
            options.seeds, options.timing = 1, dict(QUICK_TIMING)
        return evaluate(self.task, self.work / "solution.py", options)

    def _tool_evaluate(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        result = self._evaluate(args.get("workloads"), cancel)
        return ToolOutcome(compact_eval(result), eval_result=result)

    def _tool_submit(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        result = self._evaluate(None, cancel, submit=True)
        final = args.get("final", True)
        text = "submission recorded" + ("" if final else " (not final: keep improving)") + "\n" + compact_eval(result)
        return ToolOutcome(text, eval_result=result, submission=True, final=final)

    def _tool_profile(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        workload = self.task.workload(args["workload"])
        text, failed = run_profile(self.task, self.work, workload, self.eval_timeout_s, cancel)
        return ToolOutcome(text, is_error=failed)
