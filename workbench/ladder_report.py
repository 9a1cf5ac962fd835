"""One task's design ladder from the recorded GPU run, beside a session's latest eval: what each level
of guidance was worth on the GPU, and where the session's own kernel stands among the rungs.

Markdown, for the app's Ladder tab; nothing here measures. The session's figures are compared only
when they were timed on the same kind of device as the recorded run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.suite import (
    SuiteRun,
    SuiteRunError,
    WorkloadRow,
    ladder_steps,
    latest_run,
    load_run,
    workload_rows,
)
from workbench.tasks import LADDER_RUNGS, Task

RUNG_TITLES = {"plain": "plain", "l1": "L1", "l1_l2": "L1+L2", "expert": "expert (L1-L3)"}


def _us(ms: float | None) -> str:
    return f"{ms * 1e3:.1f}" if ms else "–"


def session_latencies(result: dict[str, Any] | None) -> dict[str, float]:
    """Median latency (ms) per workload of an eval result as logged; only timed, correct workloads."""
    if not result:
        return {}
    out = {}
    for w in result.get("workloads", []):
        latency = w.get("latency_ms")
        if w.get("correct") and latency and latency.get("median"):
            out[w["name"]] = float(latency["median"])
    return out


def standing(session_ms: float, rungs: list[tuple[str, float]]) -> str:
    """Which rungs the session's kernel is faster than. The rungs' latencies need not fall in
    order (a level can cost time on some shape), so the rungs beaten are named, not a position."""
    beaten = [RUNG_TITLES[name] for name, ms in rungs if session_ms < ms]
    if len(beaten) == len(rungs):
        return "faster than every rung"
    if not beaten:
        return "slower than every rung"
    return "faster than " + ", ".join(beaten)


def _session_note(run: SuiteRun, result: dict[str, Any] | None, timed: dict[str, float], who: str) -> str | None:
    if not result:
        return f"The {who} has no eval yet."
    device = result.get("device") or {}
    if device.get("mode") != "cuda" or not timed:
        return f"The {who}'s evals are not timed here (interpret mode, or nothing correct was timed)."
    if device.get("name") != run.device.get("name"):
        return (f"The {who} ran on {device.get('name', '?')}, the ladder on {run.device.get('name', '?')}: "
                "the figures are not comparable.")  # fmt: skip
    return None


def _no_rungs_timed(task: Task) -> str:
    """Why the table shows only the expert: the task keeps no ladder, or the run did not time its rungs."""
    kept = [RUNG_TITLES[r] for r, _ in task.ladder if r != "expert"]
    if not kept:
        return "*This task keeps no design ladder: its expert against the reference.*"
    return (f"*This task keeps a design ladder ({', '.join(kept)}), but the recorded run did not time its rungs: "
            "its expert against the reference.*")  # fmt: skip


def ladder_markdown(
    task: Task,
    run: SuiteRun | None,
    session_result: dict[str, Any] | None,
    unreadable: str | None = None,
    who: str | None = "session",
) -> str:
    """The task's rungs per workload from `run`, with an eval beside them: the latest of a session
    (`who` names it: "session", "eval"), or none (`who=None`, no column). `unreadable` says why
    there is no run when the recorded file could not be read."""
    lines = [f"## Design ladder: {task.name}", ""]
    if run is None:
        why = unreadable or "No GPU run is recorded (docs/runs/\\*/suite.json); `benchmarks/suite_gpu.py` records one."
        lines.append(f"*{why}*")
        return "\n".join(lines) + "\n"
    rows = [r for r in workload_rows(run, [task]) if r.workload != "-"]
    if not rows:
        lines.append(f"*The recorded run ({run.path}) has no timed workload of this task.*")
        return "\n".join(lines) + "\n"
    rung_names = [r for r in LADDER_RUNGS if any(r in row.ladder_ms for row in rows)]
    timed = session_latencies(session_result)
    note = _session_note(run, session_result, timed, who) if who else None
    comparable = who is not None and note is None
    lines += [f"Measured on {run.where(task.name)}. Latencies in µs. {_how_timed(run, task.name)}", ""]
    if not rung_names:
        lines += [_no_rungs_timed(task), ""]
    header = ["workload", "reference", *(RUNG_TITLES[r] for r in rung_names), RUNG_TITLES["expert"]]
    header += [f"this {who}"] if who else []
    header += [f"where the {who} stands"] if comparable else []
    lines += ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    for row in rows:
        cells = _cells(row, rung_names, timed if comparable else {})
        lines.append("| " + " | ".join(cells if who else cells[:-1]) + " |")
    if rung_names:
        lines += ["", "Each step is a rung's latency over the next rung's: over 1x, the level made it faster.", ""]
        lines += _steps_table(rows, rung_names)
    if note:
        lines += ["", f"*{note}*"]
    return "\n".join(lines) + "\n"


def _cells(row: WorkloadRow, rung_names: list[str], timed: dict[str, float]) -> list[str]:
    session = timed.get(row.workload)
    if row.expert_ms is None:
        failed = f"failed: {row.error or '?'}".replace("|", "\\|")
        return [row.workload, "", *("" for _ in rung_names), failed, _us(session), *(["–"] if timed else [])]
    cells = [row.workload, _us(row.reference_ms), *(_us(row.ladder_ms.get(r)) for r in rung_names)]
    cells += [_us(row.expert_ms), _us(session)]
    if timed:
        rungs = [(r, row.ladder_ms[r]) for r in rung_names if r in row.ladder_ms] + [("expert", row.expert_ms)]
        cells.append(standing(session, rungs) if session else "–")
    return cells


def _steps_table(rows: list[WorkloadRow], rung_names: list[str]) -> list[str]:
    chain_names = [*rung_names, "expert"]
    steps = [f"{RUNG_TITLES[a]} → {RUNG_TITLES[b]}" for a, b in zip(chain_names, chain_names[1:])]
    lines = ["| workload | " + " | ".join(steps) + " |", "| --- |" + " ---: |" * len(steps)]
    for row in rows:
        cells = [f"{step:.2f}x" if step else "–" for step in ladder_steps(row.ladder_chain(rung_names))]
        lines.append(f"| {row.workload} | " + " | ".join(cells) + " |")
    return lines


def recorded_run(root: Path) -> tuple[SuiteRun | None, str | None]:
    """The latest recorded run under root, or None and why (a malformed file is said, not raised)."""
    path = latest_run(root)
    if path is None:
        return None, None
    try:
        return load_run(path), None
    except SuiteRunError as exc:
        return None, str(exc)


def _how_timed(run: SuiteRun, task: str) -> str:
    """Whether the rungs and the expert were timed in one eval, in alternation (a step then compares like with
    like), or each in an eval of its own (a step may hold the difference between two moments of the GPU)."""
    results = run.results.get(task, {})
    if len(results) < 2:
        return ""
    seeds = {result.seed for result in results.values()}
    together = len(seeds) == 1 and all(
        "in alternation with" in (w.timing_note or "") for result in results.values() for w in result.workloads
        if w.latency_ms
    )  # fmt: skip
    return ("The rungs and the expert were timed together, in alternation, in one eval." if together else
            "Each rung was timed in an eval of its own.")  # fmt: skip
