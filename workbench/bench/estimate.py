"""`workbench bench --dry-run`: which sessions a bench would run, and a range of what they would cost, before anything
is started or spent (no key needed, nothing written).

A session's tokens come from the measured token profile (`measured_profile.py`, written by
benchmarks/context_bench.py) played through the loop's compaction rule at the model's window (`token_model.py`); its
price from the price table. The low end of a range has every session end early (at a quarter of its budget: an
assumption, not a measurement), the high end run its whole budget, or stop at the session cap (one turn past it: the
loop checks the cap between turns). What a resumed bench has already spent is read from its logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.agent.pricing import Price, cost, price_for, price_table
from workbench.bench.measured_profile import PROFILE
from workbench.bench.plan import BenchPlan, SessionSpec
from workbench.bench.sessions import session_status
from workbench.bench.spend import LoggedSpend, logged_spend, stopped_by_cap, usd
from workbench.bench.token_model import SimulatedSession, TokenProfile, simulate
from workbench.session.context import context_window

EARLY_SHARE = 0.25  # the low end's assumption: sessions that end at a quarter of their budget


@dataclass(frozen=True)
class PlannedSession:
    spec: SessionSpec
    state: str  # new, partial, stopped (by the bench's cost cap), finished, unreadable
    turns: int  # complete turns so far
    spent: float | None  # USD so far (None: unknown); 0.0 for a new session


@dataclass
class ModelEstimate:
    label: str
    window: int
    priced: bool
    to_run: int = 0
    spent: float | None = 0.0  # by this model's sessions of the bench so far; None: some of it unknown
    low: float | None = 0.0  # more to spend, ending early; None: no price
    high: float | None = 0.0  # more to spend, running the whole budget (or to the session cap)
    full_session: float | None = None  # a new session run to its whole budget (or to the session cap)
    early_session: float | None = None


@dataclass
class BenchEstimate:
    plan: BenchPlan
    sessions: list[PlannedSession]
    models: list[ModelEstimate]
    early_turn: int
    bench_cap: float | None = None
    notes: list[str] = field(default_factory=list)


def planned_sessions(plan: BenchPlan, bench_dir: Path | None) -> list[PlannedSession]:
    """Where each planned session stands in `bench_dir` (None, or a folder not made yet: all new)."""
    if bench_dir is None or not (bench_dir / "sessions").is_dir():
        return [PlannedSession(spec, "new", 0, 0.0) for spec in plan.sessions()]
    capped = stopped_by_cap(bench_dir)
    found = []
    for spec in plan.sessions():
        key_dir = bench_dir / "sessions" / spec.key
        state = session_status(key_dir).state
        logged = logged_spend(key_dir) if state != "unreadable" else None
        if state == "partial" and spec.key in capped:
            state = "stopped"
        spent = logged or LoggedSpend(0.0, 0)
        found.append(PlannedSession(spec, state, spent.turns, spent.cost))
    return found


def _session_cost(model: str, run: SimulatedSession, turns: int, cap: float | None,
                  table: dict[str, Price]) -> float | None:  # fmt: skip
    """What a session costs by the end of `turns`, or where the session cap ends it (the first turn at or over it)."""
    spent = cost(model, run.usage_at(turns), table)
    if spent is None or cap is None or spent < cap:
        return spent
    for turn in range(1, turns + 1):
        at = cost(model, run.usage_at(turn), table) or 0.0
        if at >= cap:
            return at
    return spent


def estimate(plan: BenchPlan, bench_dir: Path | None = None, bench_cap: float | None = None,
             profile: TokenProfile = PROFILE) -> BenchEstimate:  # fmt: skip
    sessions = planned_sessions(plan, bench_dir)
    early = max(1, round(plan.budget * EARLY_SHARE))
    table = price_table()
    models = []
    for model in plan.models:
        window = context_window(model.model)
        run = simulate(profile, plan.budget, window)
        line = ModelEstimate(model.label, window, price_for(model.model, table) is not None)
        line.full_session = _session_cost(model.model, run, plan.budget, plan.cost_usd, table)
        line.early_session = _session_cost(model.model, run, early, plan.cost_usd, table)
        for planned in (s for s in sessions if s.spec.model == model):
            line.spent = None if line.spent is None or planned.spent is None else line.spent + planned.spent
            if planned.state in ("finished", "unreadable"):
                continue
            line.to_run += 1
            so_far = _session_cost(model.model, run, planned.turns, None, table) if planned.turns else 0.0
            low = _session_cost(model.model, run, max(early, planned.turns), plan.cost_usd, table)
            high = line.full_session
            if None in (so_far, low, high, line.low, line.high):
                line.low = line.high = None
                continue
            line.low = line.low + max(0.0, low - so_far)  # type: ignore[operator]
            line.high = line.high + max(0.0, high - so_far)  # type: ignore[operator]
        models.append(line)
    return BenchEstimate(plan, sessions, models, early, bench_cap, _notes(plan, profile, early))


def _notes(plan: BenchPlan, profile: TokenProfile, early: int) -> list[str]:
    return [
        f"a session's tokens as measured in {profile.source}: a first prompt of {profile.first_prompt:,} tokens "
        f"(this bench's tasks and guidance may be longer), +{profile.growth:,.0f} a turn, {profile.output:,.0f} output "
        f"tokens a turn (no extended thinking), the prompt cache read as in that session, compactions by the loop's "
        f"rule at each model's window",
        f"low: every session still to run ends at turn {early} ({EARLY_SHARE:.0%} of the budget; an assumption); high: "
        f"every one runs all {plan.budget} turns"
        + (f" or stops at the {usd(plan.cost_usd)} session cap (one turn past it)" if plan.cost_usd else ""),
        "list prices from the price table (WORKBENCH_PRICES overrides them); the judge's calls are not included",
    ]


def _money(value: float | None) -> str:
    return "unknown" if value is None else usd(value)


def render(found: BenchEstimate, bench_dir: Path) -> str:
    """The dry run's text: the plan, where it stands, the estimate per model and in total, and what it assumes."""
    plan, sessions = found.plan, found.sessions
    lines = [f"dry run of bench {bench_dir} (nothing is started or spent)",
             f"plan: {len(plan.tasks)} tasks x {len(plan.conditions)} conditions ({', '.join(plan.conditions)}) x "
             f"{len(plan.models)} models x {plan.seeds} repeats = {len(sessions)} sessions of up to {plan.budget} "
             f"turns, evals in {plan.mode}"]  # fmt: skip
    counts = {state: sum(s.state == state for s in sessions) for state in ("finished", "partial", "stopped", "new")}
    lines.append(f"already: {counts['finished']} finished, {counts['partial']} partial, {counts['stopped']} stopped "
                 f"by the bench's cost cap, {counts['new']} not started")  # fmt: skip
    lines += [f"  {s.spec.key}: {s.state}, {s.turns} turns, {_money(s.spent)} spent"
              for s in sessions if s.state != "new"]  # fmt: skip
    lines.append("estimated cost (USD, still to spend):")
    for line in found.models:
        if not line.priced:
            lines.append(f"  {line.label}: {line.to_run} sessions to run; unknown: the price table has no price for "
                         "this model (add it to the prices file)")  # fmt: skip
            continue
        lines.append(
            f"  {line.label}: {line.to_run} sessions to run, {_money(line.low)} - {_money(line.high)} "
            f"(a session {_money(line.early_session)} ending at turn {found.early_turn}, "
            f"{_money(line.full_session)} in full; window {line.window:,}); spent so far {_money(line.spent)}"
        )
    priced = [m for m in found.models if m.low is not None and m.high is not None]
    low, high = sum(m.low or 0.0 for m in priced), sum(m.high or 0.0 for m in priced)
    unpriced = [m.label for m in found.models if m not in priced]
    total = f"total: {usd(low)} - {usd(high)}" + (f" (without {', '.join(unpriced)}: unknown)" if unpriced else "")
    if found.bench_cap is not None:
        spent = sum(m.spent or 0.0 for m in found.models)
        left = max(0.0, found.bench_cap - spent)
        total += (
            f"; the bench's cost cap stops it at {usd(found.bench_cap)} ({usd(spent)} of it spent already, "
            f"{usd(min(high, left))} at most still to spend, and up to a turn of each session running then)"
        )
    lines.append(total)
    lines.append("assumes:")
    lines += [f"  - {note}" for note in found.notes]
    return "\n".join(lines)
