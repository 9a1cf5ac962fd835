"""An eval on the page: its verdict line and a table of its workloads (verdict, latency, speedup, SOL, errors and
the mismatched elements). A figure the harness did not measure is shown as unavailable with the harness's reason,
never filled in."""

from __future__ import annotations

from typing import Any

from workbench.export.markup import Html, join, pre, table, tag
from workbench.export.view import EvalView

UNAVAILABLE = "unavailable"
HEADER = ["workload", "verdict", "latency (ms)", "reference (ms)", "speedup", "SOL (ms)", "SOL fraction",
          "max abs / rel error", "mismatches"]  # fmt: skip


def verdict(view: EvalView) -> str:
    """The eval's outcome in a few words: what the fold of the transcript shows beside the turn."""
    event = view.event
    what = "submission" if event.kind == "submission" else "eval"
    if view.interrupted:
        return f"{what} interrupted"
    if event.result.get("error"):
        return f"{what}: error"
    if not event.correct:
        return f"{what}: not correct"
    speedup = event.correct_speedup
    return f"{what}: correct, {speedup:.2f}x" if speedup is not None else f"{what}: correct, untimed"


def eval_block(view: EvalView) -> Html:
    """The whole eval: a heading line, any error, the interpret-mode note, the workloads."""
    event = view.event
    badges = [tag("span", verdict(view), cls=_badge(view))]
    if event.kind == "submission":
        final = getattr(event, "final", False)
        badges.append(tag("span", "final" if final else "not final", cls="badge"))
    if view.counted:
        badges.append(tag("span", "counted (the scored submission)", cls="badge counted"))
    heading = tag("div", f"turn {event.turn}, by {event.by}, mode {view.mode} ", *badges, cls="eval-head")
    parts: list[str] = [heading]
    if view.interrupted:
        parts.append(tag("p", "Interrupted by a person while it ran: the workloads below are those that finished "
                              "before, and the verdict is not the solution's.", cls="interrupted"))  # fmt: skip
    error = event.result.get("error")
    if error:
        parts.append(pre(str(error), cls="error"))
    static = event.result.get("static")
    if isinstance(static, dict) and static.get("violations"):
        lines = [f"line {v.get('line')}: {v.get('rule')}: {v.get('message')}" for v in static["violations"]]
        parts.append(tag("div", "static checks refused: ", pre("\n".join(lines)), cls="error"))
    if not view.timed and view.workloads:
        parts.append(tag("p", f"Timing unavailable: mode {view.mode} measures correctness only.", cls="note"))
    if view.workloads:
        parts.append(table(HEADER, [_row(w) for w in view.workloads], cls="evals"))
    speedup = event.result.get("speedup_geomean")
    if isinstance(speedup, (int, float)):
        parts.append(tag("p", f"geometric-mean speedup {speedup:.3f}x"))
    return tag("div", join(parts), cls="eval")


def _badge(view: EvalView) -> str:
    if view.interrupted:
        return "badge interrupted"
    return "badge ok" if view.event.correct else "badge bad"


def _row(workload: dict[str, Any]) -> list[str]:
    note = workload.get("timing_note")
    latency = _latency(workload.get("latency_ms"), note)
    reference = _latency(workload.get("reference_ms"), note)
    name = str(workload.get("name", "?")) + (" (hidden variation)" if workload.get("hidden") else "")
    sol = _number(workload.get("sol_ms"), ".4g", note)
    sol_ms, binding = workload.get("sol_ms"), workload.get("sol_binding")
    if binding and isinstance(sol_ms, (int, float)):
        sol = tag("span", f"{sol_ms:.4g} ({binding})")  # the resource whose time SOL is
    return [
        name,
        _workload_verdict(workload),
        latency,
        reference,
        _number(workload.get("speedup"), ".3f", note, "x"),
        sol,
        _number(workload.get("sol_fraction"), ".1%", note),
        f"{_plain(workload.get('max_abs_err'))} / {_plain(workload.get('max_rel_err'))}",
        _mismatches(workload),
    ]


def _workload_verdict(workload: dict[str, Any]) -> Html:
    if workload.get("error"):
        return tag("span", "error: ", pre(str(workload["error"])), cls="bad")
    if workload.get("correct"):
        return tag("span", "correct", cls="ok")
    return tag("span", f"incorrect ({workload.get('failure') or 'unknown'})", cls="bad")


def _latency(value: object, note: object) -> Html:
    if not isinstance(value, dict) or not isinstance(value.get("median"), (int, float)):
        return _unavailable(note)
    spread = f" ± {value['err']:.3g}" if isinstance(value.get("err"), (int, float)) else ""
    runs = f" (n={value['n']})" if isinstance(value.get("n"), int) else ""
    return Html(tag("span", f"{value['median']:.4g}{spread}{runs}"))


def _number(value: object, spec: str, note: object, suffix: str = "") -> Html:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return _unavailable(note)
    return tag("span", f"{value:{spec}}{suffix}")


def _unavailable(note: object) -> Html:
    """A figure the harness left out; its note (interpret mode, a failed check) says why."""
    return tag("span", UNAVAILABLE, cls="unavailable", title=str(note) if note else "not measured")


def _plain(value: object) -> str:
    return f"{value:.3g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "–"


def _mismatches(workload: dict[str, Any]) -> Html:
    count = workload.get("mismatches")
    shown = [m for m in workload.get("first_mismatches") or [] if isinstance(m, dict)]
    worst = workload.get("worst")
    lines = [f"{m.get('output')}{m.get('index')}: got {m.get('got')}, expected {m.get('expected')}" for m in shown]
    if isinstance(worst, dict):
        lines.append(f"worst {worst.get('output')}{worst.get('index')}: got {worst.get('got')}, "
                     f"expected {worst.get('expected')}")  # fmt: skip
    head = f"{count} elements" if isinstance(count, int) else ("–" if not lines else "")
    return join([head, pre("\n".join(lines), cls="mismatch") if lines else ""])
