"""The agent's tools: files, bash, evaluate, profile, submit — all confined to its workspace."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.agent.conversation import ToolSpec
from workbench.harness import EvalOptions, EvalResult, evaluate
from workbench.harness.lock import GpuUse, lock_path
from workbench.harness.runner import QUICK_TIMING, EvalUsageError
from workbench.harness.sandbox import confine, safe_environment, unconfined_warning
from workbench.session import profile_driver
from workbench.session.bash import OUTPUT_CAP, run_bash
from workbench.session.workspace import WorkspaceError, resolve_inside
from workbench.tasks import Task

READ_CAP = 40_000
DEFAULT_BASH_TIMEOUT_S, MAX_BASH_TIMEOUT_S = 120.0, 900.0

_STR = {"type": "string"}
TOOL_SPECS = [
    ToolSpec("read_file", "Read a text file of your workspace.",
             {"type": "object", "properties": {"path": _STR}, "required": ["path"]}),
    ToolSpec("write_file", "Create or overwrite a file of your workspace with the given content.",
             {"type": "object", "properties": {"path": _STR, "content": _STR}, "required": ["path", "content"]}),
    ToolSpec("edit_file", "Replace an exact piece of text in a file (it must occur exactly once unless replace_all).",
             {"type": "object", "properties": {"path": _STR, "old": _STR, "new": _STR,
                                               "replace_all": {"type": "boolean"}},
              "required": ["path", "old", "new"]}),
    ToolSpec("list_files", "List the files of your workspace (or of one folder in it).",
             {"type": "object", "properties": {"path": _STR}}),
    ToolSpec("bash", "Run a bash command in your workspace (no network; output capped; default timeout 120 s).",
             {"type": "object", "properties": {"command": _STR, "timeout_s": {"type": "number"}},
              "required": ["command"]}),
    ToolSpec("evaluate", "Run the harness on solution.py: static checks, correctness and (on a GPU) timing. "
             "Optionally only the named workloads.",
             {"type": "object", "properties": {"workloads": {"type": "array", "items": _STR}}}),
    ToolSpec("profile", "Profile solution.py on one workload with Nsight Compute, where it is installed.",
             {"type": "object", "properties": {"workload": _STR}, "required": ["workload"]}),
    ToolSpec("submit", "Submit solution.py: a full evaluation, recorded. With final=true (the default) the "
             "session ends after this turn; with final=false you may keep improving and submit again.",
             {"type": "object", "properties": {"final": {"type": "boolean"}}}),
]  # fmt: skip
TOOL_NAMES = {spec.name for spec in TOOL_SPECS}


@dataclass
class ToolOutcome:
    text: str
    is_error: bool = False
    eval_result: EvalResult | None = None
    submission: bool = False
    final: bool = False


class ToolError(Exception):
    """A tool call the agent got wrong: reported back to it as an error result."""


class ToolBox:
    def __init__(self, task: Task, work: Path, mode: str | None, eval_timeout_s: float = 300.0) -> None:
        self.task = task
        self.work = work
        self.mode = mode
        self.eval_timeout_s = eval_timeout_s

    def execute(self, name: str, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        try:
            handler = getattr(self, f"_tool_{name}") if name in TOOL_NAMES else None
            if handler is None:
                raise ToolError(f"unknown tool {name!r}; the tools are {sorted(TOOL_NAMES)}")
            result: ToolOutcome = handler(args, cancel)
            return result
        except (ToolError, WorkspaceError, EvalUsageError) as exc:
            return ToolOutcome(f"error: {exc}", is_error=True)
        except KeyError as exc:
            return ToolOutcome(f"error: missing argument {exc.args[0]!r} for {name}", is_error=True)

    def _path(self, args: dict[str, Any], key: str = "path") -> Path:
        value = args[key]
        if not isinstance(value, str) or not value:
            raise ToolError(f"{key} must be a non-empty string")
        return resolve_inside(self.work, value)

    def _tool_read_file(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        path = self._path(args)
        if not path.is_file():
            raise ToolError(f"no file {args['path']}")
        text = path.read_text(encoding="utf-8", errors="replace")
        if len(text) > READ_CAP:
            text = text[:READ_CAP] + f"\n[truncated: {len(text)} characters in all, showing the first {READ_CAP}]"
        return ToolOutcome(text)

    def _tool_write_file(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        path, content = self._path(args), args["content"]
        if not isinstance(content, str):
            raise ToolError("content must be a string")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return ToolOutcome(f"wrote {args['path']} ({len(content.splitlines())} lines)")

    def _tool_edit_file(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        path, old, new = self._path(args), args["old"], args["new"]
        if not path.is_file():
            raise ToolError(f"no file {args['path']}")
        text = path.read_text(encoding="utf-8")
        count = text.count(old) if old else 0
        if count == 0:
            raise ToolError(f"the text to replace does not occur in {args['path']}")
        if count > 1 and not args.get("replace_all"):
            raise ToolError(f"the text to replace occurs {count} times in {args['path']}; give more context")
        path.write_text(text.replace(old, new), encoding="utf-8")
        return ToolOutcome(f"edited {args['path']} ({count} replacement{'s' if count > 1 else ''})")

    def _tool_list_files(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        root = self._path(args) if args.get("path") else self.work.resolve()
        if not root.is_dir():
            raise ToolError(f"no folder {args.get('path')}")
        entries = []
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(self.work.resolve())
            if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                continue
            entries.append(f"{relative}/" if path.is_dir() else f"{relative} ({path.stat().st_size} bytes)")
        return ToolOutcome("\n".join(entries) or "(empty)")

    def _tool_bash(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        command = args["command"]
        timeout = min(float(args.get("timeout_s") or DEFAULT_BASH_TIMEOUT_S), MAX_BASH_TIMEOUT_S)
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
        workloads = args.get("workloads")
        if workloads is not None and not (isinstance(workloads, list) and all(isinstance(w, str) for w in workloads)):
            raise ToolError("workloads must be a list of workload names")
        result = self._evaluate(workloads, cancel)
        return ToolOutcome(compact_eval(result), eval_result=result)

    def _tool_submit(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        result = self._evaluate(None, cancel, submit=True)
        final = bool(args.get("final", True))
        text = "submission recorded\n" + compact_eval(result)
        return ToolOutcome(text, eval_result=result, submission=True, final=final)

    def _tool_profile(self, args: dict[str, Any], cancel: threading.Event) -> ToolOutcome:
        workload = self.task.workload(str(args["workload"]))
        ncu = shutil.which("ncu")
        if ncu is None:
            return ToolOutcome("profiling is unavailable: Nsight Compute (ncu) is not installed on this machine",
                               is_error=True)  # fmt: skip
        work = self.work.resolve()
        with tempfile.TemporaryDirectory(prefix="workbench-profile-") as tmp:
            # the driver goes in as a copy: the sandbox shows neither the project nor the package
            driver = Path(shutil.copy(Path(profile_driver.__file__), tmp))
            command = [ncu, "--clock-control", "none", "--target-processes", "all", "--print-summary", "per-kernel",
                       sys.executable, "-I", str(driver), str(self.task.file("inputs.py").resolve()),
                       str(work / "solution.py"), json.dumps(workload.params), str(workload.seed)]  # fmt: skip
            env = safe_environment(home=work) | {"TRITON_CACHE_DIR": str(work / ".triton"), "PYTHONUNBUFFERED": "1"}
            env.pop("TRITON_INTERPRET", None)
            note = unconfined_warning()
            if note is None:
                ncu_home = Path(ncu).resolve().parent  # its sections and target libraries, where not under /usr
                command = confine(command, writable=[work], readable=[Path(tmp), self.task.path.resolve(), ncu_home],
                                  chdir=work, gpu=True, env=env)  # fmt: skip
            lock = lock_path()
            lock.parent.mkdir(parents=True, exist_ok=True)
            use = GpuUse(lock)  # outside the sandbox, held exclusively: a profile is a measurement
            try:
                with use.exclusive():
                    proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                                          timeout=self.eval_timeout_s)  # fmt: skip
            except subprocess.TimeoutExpired:
                return ToolOutcome(f"profiling ran past its timeout ({self.eval_timeout_s:.0f} s)", is_error=True)
            finally:
                use.handle.close()
        output = (proc.stdout + proc.stderr)[-OUTPUT_CAP:]
        return ToolOutcome(output + (f"\n{note}" if note else ""), is_error=proc.returncode != 0)


def compact_eval(result: EvalResult) -> str:
    """An eval result in a few lines, for the model."""
    if not result.static.ok:
        lines = ["static checks FAILED (the solution was not run):"]
        lines += [f"  line {v.line}: [{v.rule}] {v.message}" for v in result.static.violations]
        return "\n".join(lines)
    lines = []
    if result.error:
        lines.append(f"error: {result.error}")
    lines += [w.summary() for w in result.workloads]
    verdict = "CORRECT" if result.correct else "NOT CORRECT"
    speed = f", speedup geomean {result.speedup_geomean:.3f}x" if result.speedup_geomean else ""
    mode = result.device.mode if result.device else "?"
    lines.append(f"{verdict}{speed} (mode {mode})")
    return "\n".join(lines)
