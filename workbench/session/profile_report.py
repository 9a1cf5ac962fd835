"""Nsight Compute's report on the solution's Triton kernels, summarised per kernel for the model.

The profile tool runs `ncu --csv --page details` with the speed-of-light, launch and occupancy sections and the
metrics below; this module reads that CSV (one row a metric of a launch, one a rule's finding) and says per
kernel: its time, the DRAM bandwidth and FLOP rate it reached against the device's peaks, what limits it (ncu's
SOLBottleneck finding, and the memory and compute throughput it is judged on) and its launch shape. The kernels
are found by name: the @triton.jit functions of solution.py and the helper files it imports, so the input
generation and the reference, which run under the profiler too, are left out.
"""

from __future__ import annotations

import ast
import csv
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from workbench.harness.runner import helper_files
from workbench.session.tool_args import ToolError

SECTIONS = ("SpeedOfLight", "LaunchStats", "Occupancy")
_FLOP_OPS = {f"{kind}{op}": 2 if op == "fma" else 1 for kind in "fhd" for op in ("add", "mul", "fma")}
METRICS = (
    "gpu__time_duration.sum",
    "dram__bytes.sum",
    "dram__bytes.sum.peak_sustained",  # bytes a DRAM cycle ...
    "dram__cycles_elapsed.avg.per_second",  # ... times DRAM cycles a second: the peak bandwidth
    "sm__cycles_elapsed.avg.per_second",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",  # with the SM clock: the fp32 peak
    *(f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum" for op in _FLOP_OPS),
)
LATENCY_BOUND_PCT = 60.0  # ncu's SOLBottleneck: below this on both memory and compute, latency limits the kernel
_HEADER_START = '"ID","Process ID"'


def triton_kernel_names(solution: Path) -> list[str]:
    """The @triton.jit functions of solution.py and of the helper modules it imports, in file order."""
    names: list[str] = []
    for source in [solution, *helper_files(solution)]:
        try:
            tree = ast.parse(source.read_bytes(), filename=source.name)
        except SyntaxError as exc:
            raise ToolError(f"{source.name} does not parse (line {exc.lineno}: {exc.msg}): fix it first") from None
        except ValueError as exc:  # a NUL byte
            raise ToolError(f"{source.name} cannot be parsed: {exc}") from None
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            if any(_is_jit(d) for d in node.decorator_list) and node.name not in names:
                names.append(node.name)
    return names


def _is_jit(decorator: ast.expr) -> bool:
    """@triton.jit, @jit, @triton.jit(...) (autotune and heuristics stack on top of one of these)."""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)) == "jit"


def kernel_filter(names: list[str]) -> str:
    """ncu's --kernel-name value that matches exactly these kernels."""
    return "regex:^(" + "|".join(re.escape(n) for n in names) + ")$"


@dataclass
class Launch:
    """One profiled kernel launch: its metrics by (section, name) in base units, and its rules' findings."""

    id: str
    kernel: str
    grid: str = ""
    block: str = ""
    metrics: dict[tuple[str, str], float | str] = field(default_factory=dict)
    findings: dict[str, str] = field(default_factory=dict)  # rule name -> description

    def value(self, name: str, section: str | None = None) -> float | None:
        """A numeric metric by its name (in any section unless one is named)."""
        for (sec, metric), value in self.metrics.items():
            if metric == name and (section is None or sec == section) and isinstance(value, float):
                return value
        return None


def parse_details_csv(text: str) -> tuple[list[Launch], list[str]]:
    """The launches of `ncu --csv --page details` output, and its other lines (ncu's notes, the program's own)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(_HEADER_START)), None)
    if start is None:
        return [], lines
    table = [line for line in lines[start:] if line.startswith('"')]
    other = lines[:start] + [line for line in lines[start:] if not line.startswith('"')]
    launches: dict[str, Launch] = {}
    for row in csv.DictReader(table):
        launch_id = row.get("ID") or ""
        launch = launches.get(launch_id)
        if launch is None:
            launch = launches[launch_id] = Launch(launch_id, row.get("Kernel Name") or "?", row.get("Grid Size") or "",
                                                  row.get("Block Size") or "")  # fmt: skip
        rule = row.get("Rule Name")
        if rule:
            launch.findings[rule] = row.get("Rule Description") or ""
        elif row.get("Metric Name"):
            key = (row.get("Section Name") or "", row["Metric Name"])
            launch.metrics[key] = _value(row.get("Metric Value") or "", row.get("Metric Unit") or "")
    return list(launches.values()), other


def _value(raw: str, unit: str) -> float | str:
    """A metric's value in base units (seconds, bytes, bytes a second, hertz; percentages as they are)."""
    try:
        number = float(raw.replace(",", ""))
    except ValueError:
        return raw
    numerator, _, denominator = unit.partition("/")
    return number * _scale(numerator) / (_scale(denominator) if denominator else 1.0)


_PREFIXES = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "g": 1e9, "T": 1e12, "P": 1e15,
             "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12}  # fmt: skip
_TIME_ABBREVIATIONS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_BASE_UNITS = ("byte", "second", "hz", "cycle", "inst", "flop", "sector", "request", "warp", "block", "thread")


def _scale(unit: str) -> float:
    """The factor of a unit's SI prefix: Gbyte 1e9, usecond 1e-6, ns 1e-9, Ghz 1e9, cycle 1."""
    unit = unit.strip()
    if unit in _TIME_ABBREVIATIONS:
        return _TIME_ABBREVIATIONS[unit]
    for base in _BASE_UNITS:
        if unit.lower().endswith(base):
            return _PREFIXES.get(unit[: len(unit) - len(base)], 1.0)
    return 1.0


@dataclass
class KernelSummary:
    name: str
    launches: int
    seconds: float | None  # the median launch's time
    dram_bytes_per_s: float | None = None
    dram_peak_bytes_per_s: float | None = None
    flops_per_s: float | None = None  # on the fp32, fp16 and fp64 pipes; tensor-core work is not counted
    fp32_peak_flops_per_s: float | None = None
    memory_pct: float | None = None  # ncu's speed of light: the busiest memory unit's share of its peak
    compute_pct: float | None = None  # ... and the busiest SM pipe's
    dram_pct: float | None = None
    bottleneck: str | None = None  # ncu's SOLBottleneck finding
    grid: str = ""
    block: str = ""
    registers: float | None = None
    occupancy_pct: float | None = None
    theoretical_occupancy_pct: float | None = None

    @property
    def limiter(self) -> str | None:
        if self.memory_pct is None or self.compute_pct is None:
            return None
        if max(self.memory_pct, self.compute_pct) < LATENCY_BOUND_PCT:
            return "latency"
        return "memory" if self.memory_pct >= self.compute_pct else "compute"


def summarise(launches: list[Launch], kernels: list[str] | None = None) -> list[KernelSummary]:
    """One summary per kernel (of `kernels` only, where given), the longest-running first."""
    by_name: dict[str, list[Launch]] = defaultdict(list)
    for launch in launches:
        if kernels is None or launch.kernel in kernels:
            by_name[launch.kernel].append(launch)
    summaries = [_summary(name, group) for name, group in by_name.items()]
    return sorted(summaries, key=lambda s: -(s.seconds or 0.0) * s.launches)


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _summary(name: str, group: list[Launch]) -> KernelSummary:
    seconds = _median([_seconds(launch) for launch in group])
    typical = min(group, key=lambda launch: abs((_seconds(launch) or 0.0) - (seconds or 0.0)))
    summary = KernelSummary(name, len(group), seconds, grid=typical.grid, block=typical.block)
    summary.dram_bytes_per_s = _median([_rate(launch, launch.value("dram__bytes.sum")) for launch in group])
    summary.flops_per_s = _median([_rate(launch, _flops(launch)) for launch in group])
    summary.dram_peak_bytes_per_s = _median(
        [_product(launch, "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second") for launch in group]
    )
    summary.fp32_peak_flops_per_s = _median([_product(launch, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum."
                                                      "peak_sustained", "sm__cycles_elapsed.avg.per_second", 2.0)
                                             for launch in group])  # fmt: skip
    summary.memory_pct = _median(
        [launch.value("Memory Throughput", "GPU Speed Of Light Throughput") for launch in group]
    )
    summary.compute_pct = _median([launch.value("Compute (SM) Throughput") for launch in group])
    summary.dram_pct = _median([launch.value("DRAM Throughput") for launch in group])
    summary.registers = typical.value("Registers Per Thread")
    summary.occupancy_pct = _median([launch.value("Achieved Occupancy") for launch in group])
    summary.theoretical_occupancy_pct = typical.value("Theoretical Occupancy")
    finding = typical.findings.get("SOLBottleneck")
    summary.bottleneck = _brief(finding) if finding else None
    return summary


def _seconds(launch: Launch) -> float | None:
    measured = launch.value("gpu__time_duration.sum")
    return measured if measured is not None else launch.value("Duration")


def _rate(launch: Launch, amount: float | None) -> float | None:
    seconds = _seconds(launch)
    return amount / seconds if amount is not None and seconds else None


def _flops(launch: Launch) -> float | None:
    counts = {op: launch.value(f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum") for op in _FLOP_OPS}
    if all(count is None for count in counts.values()):
        return None
    return sum((count or 0.0) * _FLOP_OPS[op] for op, count in counts.items())


def _product(launch: Launch, first: str, second: str, factor: float = 1.0) -> float | None:
    a, b = launch.value(first), launch.value(second)
    return a * b * factor if a is not None and b is not None else None


def _brief(text: str, limit: int = 400) -> str:
    """A finding whole where it is short (ncu's say what to look at in their last sentence), else its start."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_summaries(summaries: list[KernelSummary], where: str) -> str:
    """The summaries as text; `where` names the task and workload (scale_add/large)."""
    total = sum((s.seconds or 0.0) * s.launches for s in summaries)
    launches = sum(s.launches for s in summaries)
    kernels = f"{len(summaries)} kernel{'s' if len(summaries) > 1 else ''}"
    lines = [
        f"profiled {where} with Nsight Compute: the solution's Triton kernels only, {launches} launches of {kernels}"
    ]
    for s in summaries:
        share = (
            f", {s.seconds * s.launches / total:.0%} of the kernels' time" if s.seconds and len(summaries) > 1 else ""
        )
        plural = "es" if s.launches > 1 else ""
        lines.append(f"{s.name}: {s.launches} launch{plural}, {_time(s.seconds)} each (median){share}")
        lines += [f"  {line}" for line in _details(s)]
    return "\n".join(lines)


def _details(s: KernelSummary) -> list[str]:
    memory = f"DRAM {_rate_text(s.dram_bytes_per_s, 'B/s')}"
    if s.dram_bytes_per_s is not None and s.dram_peak_bytes_per_s:
        memory += _against(s.dram_bytes_per_s, s.dram_peak_bytes_per_s, "B/s", "the device's")
    elif s.dram_pct is not None:
        memory += f", {s.dram_pct:.0f}% of the device's peak"
    compute = f"{_rate_text(s.flops_per_s, 'FLOP/s')} on the fp32/fp16/fp64 pipes (tensor cores not counted)"
    if s.flops_per_s is not None and s.fp32_peak_flops_per_s:
        compute += _against(s.flops_per_s, s.fp32_peak_flops_per_s, "FLOP/s", "the fp32 peak")
    lines = [f"memory: {memory}", f"compute: {compute}"]
    if s.limiter and s.memory_pct is not None and s.compute_pct is not None:
        speed_of_light = f"memory throughput {s.memory_pct:.0f}% of peak, SM throughput {s.compute_pct:.0f}%"
        lines.append(f"limited by: {s.limiter} ({speed_of_light}{_WHY[s.limiter]})")
    if s.bottleneck:
        lines.append(f"ncu says: {s.bottleneck}")
    launch = [f"grid {s.grid}" if s.grid else "", f"block {s.block}" if s.block else ""]
    if s.registers is not None:
        launch.append(f"{s.registers:.0f} registers/thread")
    if s.occupancy_pct is not None:
        possible = f" of {s.theoretical_occupancy_pct:.0f}% possible" if s.theoretical_occupancy_pct is not None else ""
        launch.append(f"achieved occupancy {s.occupancy_pct:.0f}%{possible}")
    if any(launch):
        lines.append("launch: " + ", ".join(part for part in launch if part))
    return lines


_WHY = {
    "memory": "",
    "compute": "",
    "latency": f": both under {LATENCY_BOUND_PCT:.0f}%, so too little work is in flight (grid size, occupancy) or "
    "the warps stall",
}


def _against(value: float, peak: float, unit: str, what: str) -> str:
    return f", {value / peak:.0%} of {what} {_rate_text(peak, unit)}"


def _time(seconds: float | None) -> str:
    if seconds is None:
        return "? s"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.3f} ms"


def _rate_text(value: float | None, unit: str) -> str:
    if value is None:
        return f"? {unit}"
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if value >= factor:
            return f"{value / factor:.2f} {prefix}{unit}"
    return f"{value:.0f} {unit}"
