"""What the parent hands the child process: one JSON file, no torch needed to write it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Events a child writes while it waits for another eval to finish timing on its GPU, and once it has the
# GPU's lock: the parent's timeouts pause in between.
GPU_WAIT, GPU_HELD = "gpu_wait", "gpu_held"


@dataclass
class WorkloadSpec:
    name: str
    seed: int
    params: dict[str, Any]
    sol_bytes: float
    sol_flops: float
    timed: bool = True  # False for CI-sized workloads on the GPU: their time is launch overhead


@dataclass
class EvalSpec:
    task_dir: str
    solution: str
    mode: str  # "cuda" or "interpret"
    outputs: tuple[str, ...]
    tolerance: dict[str, tuple[float, float]]
    forbidden_calls: tuple[str, ...]
    allowed_torch_ops: tuple[str, ...]
    workloads: list[WorkloadSpec]
    seeds: int = 3
    timing: dict[str, Any] = field(default_factory=dict)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)))

    @classmethod
    def load(cls, path: Path) -> EvalSpec:
        data = json.loads(path.read_text())
        data["workloads"] = [WorkloadSpec(**w) for w in data["workloads"]]
        data["outputs"] = tuple(data["outputs"])
        data["tolerance"] = {k: tuple(v) for k, v in data["tolerance"].items()}
        data["forbidden_calls"] = tuple(data["forbidden_calls"])
        data["allowed_torch_ops"] = tuple(data["allowed_torch_ops"])
        return cls(**data)
