"""Session folders, the primitives: create one (a branch's with its parent's first turns), find where one picks up
again, repair and reopen its log. Front ends do not call these: `service.py` composes them into the Session service.

`sessions/<id>/events.jsonl` is the whole truth; `work/` is the agent's workspace, which resume and
branch rebuild from the log. The first event, `session_start`, carries what it takes to reproduce
the set-up: task, levels, provider, model, limits, mode, versions, device, prompt, tools.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import workbench
from workbench.agent.conversation import Message, TextBlock
from workbench.agent.provider import Provider, reasoning_effort_of, thinking_budget_of
from workbench.guidance import guidance_markdown, load_guidance
from workbench.session.events import SCHEMA_VERSION, Event, Files, SessionEnd, SessionResumed, SessionStart
from workbench.session.history import SessionState, add_discarded_spend, complete_prefix, effective, rebuild
from workbench.session.log import LogError, SessionLog, read_log
from workbench.session.loop import AgentLoop, Limits, LoopCallbacks, restore_workspace
from workbench.session.prompt import SYSTEM_PROMPT, first_message
from workbench.session.specs import recorded_limits
from workbench.session.tool_specs import tool_specs
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace, text_files
from workbench.session.writer import Writer
from workbench.tasks import Task, load_task, project_root


@dataclass
class SessionSetup:
    task: Task
    levels: set[int]
    provider: Provider
    limits: Limits
    mode: str
    base_url: str | None = None


class SessionStoreError(ValueError):
    """The sessions folder cannot hold a new session (read-only, full, not a folder): one line, exit status 2."""


def sessions_root(explicit: Path | None = None) -> Path:
    return explicit or Path(os.environ.get("WORKBENCH_SESSIONS") or project_root() / "sessions")


HUMAN = "human"  # the provider name a session driven by a person records


def new_session_id(task: str, levels: set[int], human: bool = False) -> str:
    """task-condition-time-random; the condition says who drives (a person's sessions read "human") and what
    guidance is shown (L123)."""
    shown = "L" + "".join(str(level) for level in sorted(levels)) if levels else ""
    if human:
        condition = "-".join(("human", shown)) if shown else "human"
    else:
        condition = f"guided-{shown}" if levels else "unguided"
    return f"{task}-{condition}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def detect_session_mode() -> str:
    """cuda when a GPU is visible (asked of nvidia-smi, so the session process never loads torch)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "interpret"
    return "cuda" if _gpu_name() else "interpret"


def _gpu_name() -> str | None:
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10, check=True)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def _versions() -> dict[str, str]:
    found = {"workbench": workbench.__version__, "python": sys.version.split()[0]}
    for package in ("torch", "triton", "anthropic"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    return found


def start_event(setup: SessionSetup, session_id: str, parent: dict[str, Any] | None) -> SessionStart:
    text = first_message(setup.task, setup.task.path, setup.levels, setup.limits.budget, setup.mode,
                         setup.limits.scoring)  # fmt: skip
    initial = Message("user", [TextBlock(text)])
    return SessionStart(
        turn=0,
        version=SCHEMA_VERSION,
        session_id=session_id,
        task=setup.task.name,
        levels=sorted(setup.levels),
        provider=setup.provider.name,
        model=setup.provider.model,
        scripted=setup.provider.name == "scripted",
        script=getattr(setup.provider, "source", None),
        base_url=setup.base_url,
        budget=setup.limits.budget,
        wall_clock_s=setup.limits.wall_clock_s,
        cost_limit_usd=setup.limits.cost_usd,
        mode=setup.mode,
        parent=parent,
        versions=_versions(),
        device=_gpu_name() or "cpu (no CUDA GPU)",
        system=SYSTEM_PROMPT,
        tools=[spec.to_dict() for spec in tool_specs(setup.task)],  # the task's workload names as enums
        initial_messages=[initial.to_dict()],
        context_window=setup.limits.context_window,
        scoring=setup.limits.scoring,
        thinking_budget=thinking_budget_of(setup.provider),
        reasoning_effort=reasoning_effort_of(setup.provider),
    )


def create_session(setup: SessionSetup, root: Path, history: list[Event] | None = None,
                   parent: dict[str, Any] | None = None) -> tuple[Path, SessionLog]:  # fmt: skip
    """A new session folder with its workspace and log; a branch brings the parent's first turns. A folder that
    cannot be made (a read-only or full disk) is a SessionStoreError, and the part made is removed."""
    folder = root / new_session_id(setup.task.name, setup.levels, human=setup.provider.name == HUMAN)
    made = False
    try:
        folder.mkdir(parents=True)
        made = True
        create_workspace(setup.task, folder / "work", setup.levels)
        log = SessionLog(folder / "events.jsonl")
        log.append(start_event(setup, folder.name, parent))
    except OSError as exc:
        if made:  # new and empty of anything a person made: nothing saved is lost
            shutil.rmtree(folder, ignore_errors=True)
        raise SessionStoreError(f"cannot create a session in {root}: {exc.strerror or exc}") from None
    if history is None:
        log.append(Files(turn=0, changed=text_files(folder / "work"), deleted=[]))
        return folder, log
    for event in history:
        if not isinstance(event, (SessionStart, SessionResumed)):
            log.append(dataclasses.replace(event, inherited=True))
    state = rebuild(read_log(log.path).events)
    if state.blobs and parent is not None:  # the branch's larger and binary files, from its parent's store
        keep_parent_blobs(Path(parent["session"]) / "blobs", folder / "blobs", set(state.blobs.values()))
    restore_workspace(folder / "work", state.files, state, folder / "blobs")
    if setup.levels and setup.task.guidance_path is not None:
        items = load_guidance(setup.task.guidance_path)
        (folder / "work" / "GUIDANCE.md").write_text(guidance_markdown(items, setup.levels))
    log.append(Files(turn=state.turn, changed=text_files(folder / "work"), deleted=[]))
    return folder, log


def keep_parent_blobs(source: Path, target: Path, digests: set[str]) -> None:
    target.mkdir(exist_ok=True)
    for digest in digests:
        if not (target / digest).exists():
            shutil.copyfile(source / digest, target / digest)


def load_session(folder: Path) -> tuple[list[Event], SessionStart, bool]:
    """A session's events, its start event, and whether a torn last line was dropped."""
    contents = read_log(folder / "events.jsonl")
    return contents.events, contents.start, contents.truncated_line is not None


def repair_log(path: Path) -> None:
    """Make appending start on a fresh line after a kill mid-write: a torn last line is cut, but a complete last
    event that only lacks its newline (the kill came between the two) is an event read_log counts, and is kept."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    last = data[data.rfind(b"\n") + 1 :]
    try:
        complete = isinstance(json.loads(last), dict)
    except ValueError:
        complete = False
    if complete:
        with open(path, "ab") as out:
            out.write(b"\n")
    else:
        path.write_bytes(data[: data.rfind(b"\n") + 1])


class NotResumable(LogError):
    """A session that ended for good (submitted, budget): it can be replayed or branched, not resumed."""


@dataclass
class ResumePoint:
    """Where a session picks up again: its last complete turn, and what the log says after it."""

    events: list[Event]
    start: SessionStart
    torn: bool  # a torn last line (a kill mid-write) was dropped
    prefix: list[Event]  # the events up to the last complete turn
    state: SessionState
    discarded: list[int] | None  # [first, end) seqs of a turn cut short, dropped on resume
    limits: Limits  # as started, and as earlier resumes raised them


def resume_point(folder: Path, raised: dict[str, Any] | None = None) -> ResumePoint:
    """Where a resume picks up: NotResumable for a session that ended for good, or at a limit that `raised` (the
    resume's new limits, keys as SessionResumed.limits) does not raise."""
    events, start, torn = load_session(folder)
    live = effective(events)
    prefix = complete_prefix(live)
    discarded = [prefix[-1].seq + 1, events[-1].seq + 1] if len(prefix) < len(live) else None
    state = add_discarded_spend(rebuild(prefix), events, prefix)  # earlier resumes' discards and this one's
    limits = recorded_limits(start, live)
    ends = [e for e in live if isinstance(e, SessionEnd)]
    if ends:
        _check_resumable(folder.name, ends[-1], limits, state, raised or {})
    return ResumePoint(events, start, torn, prefix, state, discarded, limits)


def _check_resumable(name: str, end: SessionEnd, limits: Limits, state: SessionState, raised: dict[str, Any]) -> None:
    """A submitted session is done. One that ran into a limit goes on only past that limit: its cost limit or its
    turns raised above what it has spent; a wall clock is one run's, and a resume starts its own. Interrupted or
    failed sessions go on as they are."""
    ended = f"{name} ended ({end.reason})"
    if end.reason == "submitted":
        raise NotResumable(f"{ended}; replay or branch it instead")
    if end.reason != "budget" or end.limit == "wall_clock":
        return
    if end.limit == "cost":
        new = raised.get("cost_limit_usd")
        if new is None or new <= state.cost:
            raise NotResumable(f"{ended} at its cost limit (${limits.cost_usd}); resume it with --max-cost above "
                               f"${state.cost:.4f} (spent so far) to go on, or replay or branch it")  # fmt: skip
        return
    new = raised.get("budget")  # turns, or a log from before the limit was recorded
    if new is None or new <= state.turn:
        raise NotResumable(f"{ended}: {state.turn} of its {limits.budget} turns spent; resume it with --budget above "
                           f"{state.turn} to go on, or replay or branch it")  # fmt: skip


def claim_resume(folder: Path, purpose: str = "resume", raised: dict[str, Any] | None = None
                 ) -> tuple[Writer, ResumePoint]:  # fmt: skip
    """The session's writer lock, then where it picks up. Read under the lock, so that nothing else can append
    between the reading and the going on; SessionBusy when another writer holds it."""
    if not (folder / "events.jsonl").exists():
        resume_point(folder)  # raises its own error: no session here
    writer = Writer.claim(folder, purpose)
    with writer.released_on_error():
        return writer, resume_point(folder, raised)


def reopen(folder: Path, point: ResumePoint, provider: Provider, writer: Writer, by: str | None = None,
           raised: dict[str, Any] | None = None) -> SessionLog:  # fmt: skip
    """Open the log for appending again (a torn line cut), record the resume (`by` what, where not a person), and
    put the workspace back as it was after the last complete turn. `writer` is the claim of claim_resume: the log
    keeps it."""
    with writer.released_on_error():
        repair_log(folder / "events.jsonl")
        log = SessionLog(folder / "events.jsonl", next_seq=point.events[-1].seq + 1, writer=writer)
    turn = point.state.turn
    log.append(SessionResumed(turn=turn, from_turn=turn, discarded=point.discarded, torn_line_dropped=point.torn,
                              provider=provider.name, model=provider.model, by=by, limits=raised or None))  # fmt: skip
    restore_workspace(folder / "work", point.state.files, point.state, folder / "blobs")
    return log


def task_of(start: SessionStart, root: Path | None = None) -> Task:
    """The session's task, from the project's tasks or those under `root` (a bench plan's)."""
    try:
        return load_task(start.task, root)
    except Exception as exc:
        raise LogError(f"the session's task {start.task!r} cannot be loaded: {exc}") from None


def build_loop(setup: SessionSetup, folder: Path, log: SessionLog, state: SessionState,
               callbacks: LoopCallbacks | None = None) -> AgentLoop:  # fmt: skip
    from workbench.agent.pricing import cost

    tools = ToolBox(setup.task, folder / "work", setup.mode)
    loop = AgentLoop(setup.provider, tools, log, state, SYSTEM_PROMPT, setup.limits, callbacks, price=cost)
    loop.requeue_notes(state.pending_notes)
    return loop
