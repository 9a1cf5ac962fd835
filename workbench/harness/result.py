"""The eval result schema (docs/eval-result.md): typed objects and their JSON form, in one place."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

SCHEMA_VERSION = 1


@dataclass
class Violation:
    rule: str
    line: int
    message: str


@dataclass
class StaticResult:
    ok: bool
    violations: list[Violation] = field(default_factory=list)


@dataclass
class Latency:
    """Milliseconds over n timed calls; err is the standard error of the mean."""

    median: float
    mean: float
    err: float
    n: int


@dataclass
class Mismatch:
    output: str
    index: list[int]
    got: float | None
    expected: float | None
    abs_err: float | None = None  # set for the worst element (infinite for a NaN or Inf where none belongs)
    rel_err: float | None = None


@dataclass
class DeviceInfo:
    name: str
    capability: str | None
    driver: str | None
    torch: str
    triton: str
    mode: str


@dataclass
class WorkloadResult:
    name: str
    correct: bool = False
    # mismatch, unwritten, input-modified, nonfinite, shape, dtype, not-a-tensor, forbidden-op, refused, no-launch,
    # timing-unverified, timing-implausible, error
    failure: str | None = None
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    mismatches: int | None = None
    first_mismatches: list[Mismatch] = field(default_factory=list)
    worst: Mismatch | None = None  # the element furthest from the reference, with its abs and rel error
    seeds_checked: int = 0
    seeds: list[int] = field(default_factory=list)  # the correctness seeds drawn for this eval, for reproduction
    hidden: bool = False  # a correctness-only variation the agent never sees (submit checks them)
    latency_ms: Latency | None = None
    reference_ms: Latency | None = None
    speedup: float | None = None
    sol_ms: float | None = None
    sol_fraction: float | None = None
    sol_binding: str | None = None  # the resource whose time is sol_ms (speed_of_light.RESOURCES: hbm, tc_bf16, ...)
    sol_by_resource_ms: dict[str, float | None] = field(default_factory=dict)  # None: needed, its ceiling unknown
    sol_datasheet_ms: float | None = None  # the same work on the board's datasheet figures, where the table has it
    sol_datasheet_binding: str | None = None
    timing_note: str | None = None  # why timing fields are null, or what the timer did
    error: str | None = None

    def summary(self) -> str:
        """One line for people and agents: verdict, then the numbers that exist."""
        if self.error:
            return f"{self.name}: ERROR {self.error.splitlines()[0] if self.error else ''}"
        if not self.correct:
            where = ""
            if self.worst is not None:
                w = self.worst
                where = f"; worst at {w.output}{w.index}: got {w.got}, expected {w.expected}, abs err {w.abs_err:.3g}"
            elif self.first_mismatches:
                first = self.first_mismatches[0]
                where = f"; first at {first.output}{first.index}: got {first.got}, expected {first.expected}"
            count = f" ({self.mismatches} elements)" if self.mismatches else ""
            return f"{self.name}: INCORRECT {self.failure}{count}{where}"
        parts = [f"{self.name}: correct"]
        if self.latency_ms and self.reference_ms and self.speedup:
            parts.append(
                f"{self.latency_ms.median * 1000:.1f} us vs reference {self.reference_ms.median * 1000:.1f} us,"
                f" speedup {self.speedup:.2f}x"
            )
            if self.sol_fraction is not None:
                bound = f" ({self.sol_binding}-bound)" if self.sol_binding else ""
                parts.append(f"SOL {self.sol_fraction:.0%}{bound}")
        elif self.timing_note:
            parts.append(f"(timing: {self.timing_note})")
        return " ".join(parts)


@dataclass
class EvalResult:
    task: str
    solution: str
    solution_sha256: str
    device: DeviceInfo | None
    static: StaticResult
    workloads: list[WorkloadResult] = field(default_factory=list)
    correct: bool = False
    speedup_geomean: float | None = None
    error: str | None = None
    ceilings: dict[str, Any] | None = None  # the measured ceiling of each resource behind sol_ms, with their source
    seed: int | None = None  # the eval's seed: `workbench eval --seed N` draws the same inputs again
    phases_s: dict[str, float] = field(default_factory=dict)  # wall time by phase (worker start, load, checks, timing)
    confined: bool | None = None  # whether the solution's worker ran under the sandbox (docs/security.md)
    version: int = SCHEMA_VERSION

    def finish(self) -> EvalResult:
        """Derive the task-level fields from the workloads."""
        ran = bool(self.workloads) and self.static.ok and self.error is None
        self.correct = ran and all(w.correct for w in self.workloads)
        speedups = [w.speedup for w in self.workloads if w.speedup]
        if self.correct and speedups:  # over the timed workloads; CI-sized ones are not timed on a GPU
            self.speedup_geomean = geomean(speedups)
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalResult:
        return _build(cls, data)


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


_NESTED: dict[str, Any] = {
    "device": DeviceInfo,
    "static": StaticResult,
    "violations": Violation,
    "workloads": WorkloadResult,
    "first_mismatches": Mismatch,
    "worst": Mismatch,
    "latency_ms": Latency,
    "reference_ms": Latency,
}


def _build(cls: Any, data: dict[str, Any]) -> Any:
    kwargs = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        nested = _NESTED.get(f.name)
        if nested is not None and isinstance(value, list):
            value = [_build(nested, v) for v in value]
        elif nested is not None and isinstance(value, dict):
            value = _build(nested, value)
        kwargs[f.name] = value
    return cls(**kwargs)


def workload_from_dict(data: dict[str, Any]) -> WorkloadResult:
    return _build(WorkloadResult, data)
