"""Plain-text rendering of an eval result, for the terminal and for an agent's tool result."""

from __future__ import annotations

from workbench.eval_feedback import VALUE_FAILURES, workload_lines
from workbench.harness.result import EvalResult, WorkloadResult
from workbench.speed_of_light import ceilings_text


def _us(ms: float | None) -> str:
    return f"{ms * 1000:9.1f}" if ms is not None else f"{'-':>9}"


def format_eval(result: EvalResult) -> str:
    lines = [f"task {result.task}   solution {result.solution}   sha256 {result.solution_sha256[:12]}"]
    if result.device:
        d = result.device
        lines.append(f"device {d.name} (mode {d.mode}, torch {d.torch}, triton {d.triton}, driver {d.driver})")
    if not result.static.ok:
        lines.append("static checks FAILED:")
        lines += [f"  line {v.line}: [{v.rule}] {v.message}" for v in result.static.violations]
    else:
        lines.append("static checks passed")
    if result.workloads:
        lines.append("")
        lines.append(
            f"{'workload':28} {'verdict':14} {'sol us':>9} {'ref us':>9} {'speedup':>8} {'SOL us':>9} {'SOL%':>6} "
            f"{'bound':10} {'sheet us':>9}"
        )
        for w in result.workloads:
            lines.append(_row(w))
        details = [line for w in result.workloads if w.error for line in _detail(w)]
        if details:
            lines.append("")
            lines += details
        notes = sorted({w.timing_note for w in result.workloads if w.timing_note})
        lines += [f"timing: {n}" for n in notes]
    if result.ceilings:
        c = result.ceilings
        lines.append(f"SOL ceilings: {ceilings_text(c)} ({c.get('source', '?')})")
        if c.get("unavailable"):
            lines.append("  not measured: " + "; ".join(f"{k}: {v}" for k, v in c["unavailable"].items()))
    if result.error:
        lines.append(f"error: {result.error}")
    verdict = "CORRECT" if result.correct else "NOT CORRECT"
    speed = f", speedup geomean {result.speedup_geomean:.3f}x" if result.speedup_geomean else ""
    lines.append(f"\n{verdict}{speed}")
    return "\n".join(lines)


def _row(w: WorkloadResult) -> str:
    verdict = "correct" if w.correct else ("error" if w.failure in (None, "error") else w.failure or "")
    lat = w.latency_ms.median if w.latency_ms else None
    ref = w.reference_ms.median if w.reference_ms else None
    speedup = f"{w.speedup:8.2f}" if w.speedup else f"{'-':>8}"
    frac = f"{w.sol_fraction:6.1%}" if w.sol_fraction is not None else f"{'-':>6}"
    bound = w.sol_binding or "-"
    return f"{w.name:28} {verdict:14} {_us(lat)} {_us(ref)} {speedup} {_us(w.sol_ms)} {frac} {bound:10} " + _us(
        w.sol_datasheet_ms
    )


def _detail(w: WorkloadResult) -> list[str]:
    """A failing workload's error; for wrong values, its worst element (got, expected, abs and rel error), the count
    and the first few, as the agent reads them."""
    if w.failure in VALUE_FAILURES and (w.worst is not None or w.first_mismatches):
        return [f"  {line}" for line in workload_lines(w)]
    return [f"  {w.name}: {w.error}"]
