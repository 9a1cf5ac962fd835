"""One bench session on disk: its status, and starting it fresh or resuming it from its log after a kill.

A session lives in `BENCH_DIR/sessions/<key>/<session-id>/` (the store names the inner folder). It is
finished when its log, as resume sees it, has a `session_end` whose reason is not `interrupted`; an
interrupted or killed session is resumed from its last complete turn through the Session service, exactly as
`workbench resume` does (the cut turn's events are marked discarded, the workspace is put back as the log says).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from workbench.bench.plan import BenchPlan, ModelSpec, SessionSpec
from workbench.session.events import Event, SessionEnd
from workbench.session.history import effective
from workbench.session.log import LogError
from workbench.session.service import Session
from workbench.session.specs import ProviderSpec, make_limits
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


def outcome(key: str, session: Session, reason: str | None) -> SessionOutcome:
    """What a bench session that ran came to, from its loop's state."""
    assert session.loop is not None  # it ran
    state = session.loop.state
    return SessionOutcome(key, reason, state.correct_submissions > 0, state.turn, state.known_cost,
                          session.resumed_from)  # fmt: skip


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
            events = Session.open(folder).events
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


def model_spec(model: ModelSpec) -> ProviderSpec:
    """The provider of a planned model."""
    return ProviderSpec(model.provider, model.model, script=Path(model.script) if model.script else None,
                        thinking=model.thinking, reasoning_effort=model.reasoning_effort)  # fmt: skip


def open_session(plan: BenchPlan, spec: SessionSpec, key_dir: Path) -> Session:
    """A session ready to run: a new one, or a partial one resumed after its last complete turn (its scripted model
    going on after the responses already played)."""
    status = session_status(key_dir)
    if status.state == "unreadable":
        raise RuntimeError(f"its log cannot be read, so it is left as it is in {status.folder}: {status.reason}")
    if status.state == "finished":
        raise RuntimeError(f"{spec.key} is finished ({status.reason}); a bench never runs a session twice")
    if status.folder is None:
        task = load_task(spec.task, Path(plan.root))
        limits = make_limits(plan.budget, plan.wall_clock_s, plan.cost_usd)
        return Session.new(task, spec.levels, model_spec(spec.model), limits, plan.mode, key_dir)
    return Session.resume(status.folder, model_spec(spec.model), by="bench", purpose="bench",
                          tasks_root=Path(plan.root))  # fmt: skip
