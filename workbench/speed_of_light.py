"""The speed-of-light model: a workload's minimum work per resource, over the device's ceiling for each.

A task's `[sol]` table states, per workload, the least work the problem needs on each resource of the GPU (HBM
bytes, tensor-core FLOPs by input dtype, CUDA-core FP32 and INT operations, special-function operations, and a
chain of dependent steps where the problem has one). Each resource's time is its work over the device's ceiling for
it; SOL is the largest of those times, and the resource that gives it is the *binding* resource. No torch here: the
harness measures the ceilings (harness/ceilings.py), this module only divides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Resource:
    name: str  # the label a result names as binding
    key: str  # the [sol] key in task.toml
    ceiling: str  # the key of the device's ceiling in a ceilings record
    unit: float  # work units per second in one ceiling unit (GB/s -> 1e9 bytes/s); 0 for the step latency
    what: str
    hard: bool  # a timing under this resource's time alone is impossible (harness/verify.py rejects it)


# Counting conventions (docs/suite.md): FP32 and INT operations count an FMA (or IMAD) as 2, as the datasheet's
# FP32 rate does; every other operation (add, max, compare, shift) as 1. Source-level operations are counted, and
# the ceilings are the best rates the microbenchmarks reach, so a compiler's fusing can only lower the bound.
RESOURCES: tuple[Resource, ...] = (
    Resource("hbm", "bytes", "bandwidth_gbps", 1e9, "HBM bytes read and written", True),
    Resource("tc_bf16", "tc_bf16_flops", "matmul_tflops", 1e12, "tensor-core FLOPs on bf16/fp16 inputs", True),
    Resource("tc_tf32", "tc_tf32_flops", "tf32_tflops", 1e12, "tensor-core FLOPs on tf32 (fp32) inputs", True),
    Resource("tc_fp8", "tc_fp8_flops", "fp8_tflops", 1e12, "tensor-core FLOPs on fp8 inputs", True),
    Resource("fp32", "fp32_ops", "fp32_tflops", 1e12, "CUDA-core FP32 operations (an FMA is 2)", False),
    Resource("int", "int_ops", "int32_tops", 1e12, "CUDA-core INT32 operations (an IMAD is 2)", False),
    Resource("sfu", "sfu_ops", "sfu_tops", 1e12, "special-function operations (exp, log, rsqrt, ...)", False),
    Resource("dependency", "dependent_steps", "step_us", 0.0, "dependent steps x one step's minimum latency", False),
)
SOL_KEYS = tuple(r.key for r in RESOURCES)
BY_KEY = {r.key: r for r in RESOURCES}
BY_CEILING = {r.ceiling: r for r in RESOURCES}
BY_NAME = {r.name: r for r in RESOURCES}

# Datasheet figures, dense (no sparsity), for the boards the project runs on. Source: NVIDIA H200 Tensor Core GPU
# datasheet (nvidia.com/en-us/data-center/h200/, H200 SXM column): 4.8 TB/s HBM3e, FP32 67 TFLOP/s, and the
# tensor-core rates it lists "with sparsity" halved: TF32 989 -> 494.7, BF16/FP16 1,979 -> 989.5, FP8 3,958 -> 1,979.
# The datasheet states no CUDA-core INT32 rate, no special-function rate and no latency: those stay unknown (None),
# and a datasheet SOL is computed without them. Keyed by the exact device name: "NVIDIA H200 NVL" has other figures.
DATASHEET_SOURCE = "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM, dense rates (the sparse figures halved)"
DATASHEETS: dict[str, dict[str, float | None]] = {
    "NVIDIA H200": {
        "bandwidth_gbps": 4800.0,
        "matmul_tflops": 989.5,
        "tf32_tflops": 494.7,
        "fp8_tflops": 1979.0,
        "fp32_tflops": 66.9,
        "int32_tops": None,
        "sfu_tops": None,
        "step_us": None,
    }
}


class SolKeyError(ValueError):
    """A [sol] key that names no resource."""


def check_keys(keys: Any) -> None:
    """Raise SolKeyError (one line) on a key that is not a resource's; `bytes` is required."""
    for key in keys:
        if key not in BY_KEY:
            hint = " (FLOPs are stated per unit now)" if key == "flops" else ""
            raise SolKeyError(f"{key!r} is no SOL resource{hint}; the keys are {', '.join(SOL_KEYS)}")
    if "bytes" not in keys:
        raise SolKeyError("'bytes' is required (the HBM bytes the problem must move)")


@dataclass
class SolTime:
    """SOL on one set of ceilings: the time, the binding resource, and every resource's time (None where the
    workload needs the resource but the ceiling is unknown: not measured, or not on the datasheet)."""

    ms: float | None
    binding: str | None
    times_ms: dict[str, float | None] = field(default_factory=dict)
    hard_ms: float | None = None  # over the resources whose bound no kernel can beat (Resource.hard)

    @property
    def unknown(self) -> list[str]:
        return [name for name, t in self.times_ms.items() if t is None]


def resource_ms(resource: Resource, work: float, ceiling: Any) -> float | None:
    """One resource's time for this much work, or None when the ceiling is not a positive number."""
    if isinstance(ceiling, bool) or not isinstance(ceiling, int | float) or not ceiling > 0:
        return None
    if resource.unit == 0.0:  # a step latency in microseconds
        return work * float(ceiling) * 1e-3
    return work / (float(ceiling) * resource.unit) * 1e3


def sol_time(work: Mapping[str, float], ceilings: Mapping[str, Any]) -> SolTime:
    """The binding resource's time for this workload's work ({[sol] key: amount}) on these ceilings."""
    times: dict[str, float | None] = {}
    for resource in RESOURCES:
        amount = float(work.get(resource.key, 0.0))
        if amount > 0:
            times[resource.name] = resource_ms(resource, amount, ceilings.get(resource.ceiling))
    known = {name: t for name, t in times.items() if t is not None}
    hard = [t for name, t in known.items() if BY_NAME[name].hard]
    if not known:
        return SolTime(None, None, times, max(hard, default=None))
    binding = max(known, key=lambda name: known[name])
    return SolTime(known[binding], binding, times, max(hard, default=None))


def datasheet(gpu_name: str | None) -> dict[str, float | None] | None:
    """The datasheet ceilings of this board, by its exact name; None for a board not in the table."""
    return DATASHEETS.get(gpu_name or "")


# How each ceiling reads in a line of text: (label, unit, format)
_CEILING_TEXT = {
    "bandwidth_gbps": ("HBM", "GB/s", "{:.0f}"),
    "matmul_tflops": ("bf16 matmul", "TFLOP/s", "{:.0f}"),
    "tf32_tflops": ("tf32 matmul", "TFLOP/s", "{:.0f}"),
    "fp8_tflops": ("fp8 matmul", "TFLOP/s", "{:.0f}"),
    "fp32_tflops": ("fp32", "TFLOP/s", "{:.1f}"),
    "int32_tops": ("int32", "Tops/s", "{:.1f}"),
    "sfu_tops": ("SFU", "Tops/s", "{:.2f}"),
    "step_us": ("dependent step", "us", "{:.3f}"),
}


def ceilings_text(ceilings: Mapping[str, Any]) -> str:
    """The ceilings a record holds, in one line ("4251 GB/s HBM, 786 TFLOP/s bf16 matmul, ...")."""
    parts = []
    for key, (label, unit, fmt) in _CEILING_TEXT.items():
        value = ceilings.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(f"{fmt.format(value)} {unit} {label}")
    return ", ".join(parts) or "none measured"
