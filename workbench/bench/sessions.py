"""One bench session on disk: its status, and starting it fresh or resuming it from its log after a kill.

A session lives in `BENCH_DIR/sessions/<key>/<session-id>/` (the store names the inner folder). It is
finished when its log, as resume sees it, has a `session_end` whose reason is not `interrupted`; an
interrupted or killed session is resumed from its last complete turn, exactly as `workbench resume`
does (the cut turn's events are marked discarded, the workspace is put back as the log says).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from workbench.agent.provider import Provider
from workbench.bench.plan import BenchPlan, ModelSpec, SessionSpec
from workbench.session.events import Event, SessionEnd
from workbench.session.history import effective, rebuild
from workbench.session.log import LogError, SessionLog
from workbench.session.loop import AgentLoop, Limits, LoopCallbacks
from workbench.session.store import SessionSetup, build_loop, claim_resume, create_session, load_session, reopen
from workbench.tasks import load_task


@dataclass(frozen=True)
class SessionStatus:
    state: str  # "new", "partial" (started, not finished), "finished" or "unreadable" (its log cannot be read)
    folder: Path | None = None
    reason: str | None = None  # the end reason of a finished session; why an unreadable one cannot be read


@dataclass(frozen=True)
class SessionOutcome:
    key: str
    reason: str | None
    correct: bool
    turns: int
    cost: float | None
    resumed_from: int | None  # the turn a killed session was resumed after; None for a fresh start


@dataclass
class OpenedSession:
    spec: SessionSpec
    folder: Path
    log: SessionLog
    loop: AgentLoop
    resumed_from: int | None

    def outcome(self, reason: str | None) -> SessionOutcome:
        state = self.loop.state
        return SessionOutcome(self.spec.key, reason, state.correct_submissions > 0, state.turn, state.known_cost,
                              self.resumed_from)  # fmt: skip


def end_reason(events: list[Event]) -> str | None:
    """The reason of the session's end as resume sees it; None while it can go on (never ended, or
    stopped with `interrupted`)."""
    ends = [e for e in effective(events) if isinstance(e, SessionEnd)]
    if ends and ends[-1].reason != "interrupted":
        return ends[-1].reason
    return None


def session_status(key_dir: Path) -> SessionStatus:
    """Where one planned session stands. A folder whose log never got a complete first event (a kill while the
    store made it) holds nothing worth keeping and is removed, so the session starts afresh. Any other log that
    cannot be read (a corrupt line, a newer schema) is never touched: the session is "unreadable", with why."""
    folders = sorted(p for p in key_dir.iterdir() if p.is_dir()) if key_dir.is_dir() else []
    for folder in folders:
        try:
            events = load_session(folder)[0]
        except LogError as exc:
            if _never_started(folder):
                shutil.rmtree(folder)
                continue
            return SessionStatus("unreadable", folder, str(exc))
        reason = end_reason(events)
        return SessionStatus("finished" if reason else "partial", folder, reason)
    return SessionStatus("new")


def _never_started(folder: Path) -> bool:
    """No log, or a log without one complete line: the store was killed before the first event was written."""
    try:
        return b"\n" not in (folder / "events.jsonl").read_bytes()
    except FileNotFoundError:
        return True


def make_model(model: ModelSpec, start_at: int = 0) -> Provider:
    """The provider of a planned model; a scripted one starts after the responses already played."""
    from workbench.agent.providers import make_provider

    if model.provider == "scripted":
        return make_provider("scripted", model.model, script=model.script, start_at=start_at)
    return make_provider(model.provider, model.model)


def _setup(plan: BenchPlan, spec: SessionSpec, provider: Provider) -> SessionSetup:
    task = load_task(spec.task, Path(plan.root))
    return SessionSetup(task, spec.levels, provider, Limits(plan.budget, plan.wall_clock_s, plan.cost_usd), plan.mode)


def open_session(plan: BenchPlan, spec: SessionSpec, key_dir: Path, callbacks: LoopCallbacks) -> OpenedSession:
    """A loop ready to start: a new session, or a partial one resumed after its last complete turn."""
    status = session_status(key_dir)
    if status.state == "unreadable":
        raise RuntimeError(f"its log cannot be read, so it is left as it is in {status.folder}: {status.reason}")
    if status.state == "finished":
        raise RuntimeError(f"{spec.key} is finished ({status.reason}); a bench never runs a session twice")
    if status.folder is None:
        setup = _setup(plan, spec, make_model(spec.model))
        folder, log = create_session(setup, key_dir)
        state = rebuild(load_session(folder)[0])
        return OpenedSession(spec, folder, log, build_loop(setup, folder, log, state, callbacks), None)
    folder = status.folder
    writer, point = claim_resume(folder, "bench")
    with writer.released_on_error():
        state = point.state
        setup = _setup(plan, spec, make_model(spec.model, start_at=state.responses))
    log = reopen(folder, point, setup.provider, writer, by="bench")
    return OpenedSession(spec, folder, log, build_loop(setup, folder, log, state, callbacks), state.turn)
