"""Plain-text rendering of an eval result, for the terminal and for an agent's tool result."""

from __future__ import annotations

from pathlib import Path

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


def format_side_by_side(results: list[EvalResult]) -> str:
    """The latencies of solutions timed together in one eval, per workload, each beside the first's (over 1x: the
    first is faster); a solution that failed a workload shows its verdict there."""
    names = [Path(r.solution).stem if Path(r.solution).name != "solution.py" else Path(r.solution).parent.name
             for r in results]  # fmt: skip
    labels = [f"{i}:{name}"[:18] for i, name in enumerate(names)]
    timed = any(w.latency_ms for r in results for w in r.workloads)
    title = "timed together (us; in brackets each one's latency over the first's):" if timed else (
        "side by side (nothing timed: correctness only in this mode):")  # fmt: skip
    lines = [title,
             f"{'workload':28} " + " ".join(f"{label:>26}" for label in labels)]  # fmt: skip
    first = {w.name: w for w in results[0].workloads}
    for w0 in results[0].workloads:
        cells = []
        for r in results:
            w = next((x for x in r.workloads if x.name == w0.name), None)
            if w is None or not w.correct:
                cells.append(f"{(w.failure or 'error') if w else '-':>26}")
            elif w.latency_ms is None:
                cells.append(f"{'correct':>26}")
            else:
                base = first[w0.name].latency_ms
                ratio = f" ({w.latency_ms.median / base.median:.2f}x)" if base and first[w0.name].correct else ""
                cells.append(f"{w.latency_ms.median * 1000:.1f}{ratio}".rjust(26))
        lines.append(f"{w0.name:28} " + " ".join(cells))
    return "\n".join(lines)
