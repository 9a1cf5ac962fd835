"""An eval result as the model reads it after every evaluate and submit: compact, with the numbers that matter.

A failing workload shows its worst element (index, got, expected, abs and rel error), the count of wrong elements
and the first few, so that a pattern (the last row, every other column) can be seen without another run. A timed
workload shows its latency, the reference's, the speedup and the speed-of-light time with the fraction reached.
A note that every untimed workload shares (the interpreter times nothing) is said once, not on each line.
"""

from __future__ import annotations

import math
from collections import defaultdict

from workbench.harness.result import EvalResult, Latency, Mismatch, WorkloadResult

SHOWN_MISMATCHES = 3  # of the first mismatches the harness keeps
ERROR_LINES, ERROR_CHARS = 4, 600  # of an error message (a solution's traceback ends with what matters)
VALUE_FAILURES = ("mismatch", "unwritten", "nonfinite")


def compact_eval(result: EvalResult) -> str:
    """An eval result in a few lines, for the model."""
    if not result.static.ok:
        lines = ["static checks FAILED (the solution was not run):"]
        lines += [f"  line {v.line}: [{v.rule}] {v.message}" for v in result.static.violations]
        return "\n".join(lines)
    lines = [f"error: {result.error}"] if result.error else []
    for workload in result.workloads:
        lines += workload_lines(workload)
    lines += _shared_notes(result.workloads)
    verdict = "CORRECT" if result.correct else "NOT CORRECT"
    speed = f", speedup geomean {result.speedup_geomean:.3f}x" if result.speedup_geomean else ""
    mode = result.device.mode if result.device else "?"
    lines.append(f"{verdict}{speed} (mode {mode})")
    return "\n".join(lines)


def workload_lines(w: WorkloadResult) -> list[str]:
    name = f"{w.name} (hidden)" if w.hidden else w.name
    if w.correct:
        return [f"{name}: correct{_timing(w)}{_margin(w)}"]
    if w.failure in VALUE_FAILURES and (w.worst is not None or w.first_mismatches):
        return _wrong_values(name, w)
    message = _short_error(w.error or "")
    label = "ERROR" if w.failure in (None, "error") else f"INCORRECT ({w.failure})"
    return [f"{name}: {label}: {message}" if message else f"{name}: {label}"]


def _timing(w: WorkloadResult) -> str:
    if w.latency_ms is None:
        return ""
    text = f", {_ms(w.latency_ms)}"
    if w.reference_ms is not None and w.speedup:
        text += f" vs reference {_ms(w.reference_ms)}, speedup {w.speedup:.2f}x"
    if w.sol_ms is not None and w.sol_fraction is not None:
        bound = f" ({w.sol_binding}-bound)" if w.sol_binding else ""
        text += f"; SOL {_ms_value(w.sol_ms)}{bound}, at {w.sol_fraction:.0%} of SOL"
    return text


def _margin(w: WorkloadResult) -> str:
    """How close a correct, untimed workload came to its tolerance: one number, the largest error."""
    if w.latency_ms is not None or w.max_abs_err is None:
        return ""
    return f" (max abs err {w.max_abs_err:.3g}, max rel err {w.max_rel_err or 0:.3g})"


def _wrong_values(name: str, w: WorkloadResult) -> list[str]:
    what = (w.error or "").split("; first at")[0]  # the harness's own "first at ...; worst at ..." is shown below
    lines = [f"{name}: INCORRECT ({w.failure}): {what}".rstrip(": ")]
    count = f"; {w.mismatches:,} wrong elements in all" if w.mismatches else ""
    if w.worst is not None:
        errors = f", abs err {_num(w.worst.abs_err)}, rel err {_num(w.worst.rel_err)}"
        lines.append(
            f"  worst {_at(w.worst)}: got {_num(w.worst.got)}, expected {_num(w.worst.expected)}{errors}{count}"
        )
    elif count:
        lines.append(f"  {count[2:]}")
    if w.first_mismatches:
        first = "; ".join(f"{_at(m)} got {_num(m.got)}, expected {_num(m.expected)}"
                          for m in w.first_mismatches[:SHOWN_MISMATCHES])  # fmt: skip
        lines.append(f"  first: {first}")
    return lines


def _shared_notes(workloads: list[WorkloadResult]) -> list[str]:
    """The timing notes of correct, untimed workloads, each once (with the workloads it is about, unless all)."""
    by_note: dict[str, list[str]] = defaultdict(list)
    for w in workloads:
        if w.correct and w.latency_ms is None and w.timing_note:
            by_note[w.timing_note].append(w.name)
    return [f"note: {note}" if len(names) == len(workloads) else f"note ({', '.join(names)}): {note}"
            for note, names in by_note.items()]  # fmt: skip


def _short_error(error: str) -> str:
    lines = [line for line in error.strip().splitlines() if line.strip()]
    if len(lines) > ERROR_LINES:  # a traceback: its last lines say what failed, and where
        lines = ["...", *lines[-ERROR_LINES:]]
    text = "\n  ".join(lines)
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "..."


def _at(m: Mismatch) -> str:
    return f"{m.output}[{', '.join(str(i) for i in m.index)}]"


def _num(value: float | str | None) -> str:
    if value is None:
        return "?"
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return str(value)  # nan, inf, -inf (also as the strings a logged result holds)
    return f"{value:.6g}"


def _ms(latency: Latency) -> str:
    return _ms_value(latency.median)


def _ms_value(ms: float) -> str:
    return f"{ms * 1000:.1f} us" if ms < 1 else f"{ms:.3f} ms"
