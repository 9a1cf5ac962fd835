"""What the parent hands the checker for one eval: one JSON line, no torch needed to write it; and the seeds.

Seeds are drawn per eval (`secrets`) unless one is given to reproduce a result, and every seed a workload uses is
derived from that one draw: nothing a solution could know before the eval (the documented seeds in task.toml are
names for a workload's data distribution, not the values it is checked on).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import asdict, dataclass, field
from typing import Any

# Events the checker writes while it waits for another eval to finish timing on its GPU, and once it has the
# GPU's lock: the parent's watchdog pauses in between. The checker is trusted; the solution's worker never writes here.
GPU_WAIT, GPU_HELD = "gpu_wait", "gpu_held"

# `workbench eval`'s default: 1 s per function and workload (a timed round makes fresh inputs on both sides and
# verifies an output, so the 0.5% target often needs more; a 3 s budget made a 4-workload eval spend 26 s timing on
# the H200). `submit` keeps TimingOptions' own 3 s.
EVAL_BUDGET_S = 1.0


def draw_seed() -> int:
    return secrets.randbits(62)


def derive_seed(master: int, workload: str, purpose: str, index: int) -> int:
    """A seed for one input set (purpose "check" or "time"), unpredictable without the master seed."""
    digest = hashlib.sha256(f"{master}/{workload}/{purpose}/{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass
class WorkloadSpec:
    name: str
    params: dict[str, Any]
    sol_work: dict[str, float]  # the problem's minimum work per resource ({[sol] key: amount}, speed_of_light.py)
    timed: bool = True  # False for CI-sized and hidden workloads: correctness only
    hidden: bool = False


@dataclass
class EvalSpec:
    task_dir: str  # the project's own task folder: inputs.py and reference.py are read from here, trusted
    solution: str  # the eval's private copy of solution.py
    mode: str  # "cuda" or "interpret"
    outputs: tuple[str, ...]
    tolerance: dict[str, tuple[float, float]]
    forbidden_calls: tuple[str, ...]  # the defaults and the task's, for the worker's runtime guard
    allowed_torch_ops: tuple[str, ...]
    workloads: list[WorkloadSpec]
    seed: int
    encodings: dict[str, str] = field(default_factory=dict)  # output -> the float dtype its integer bits encode
    expected_float64: bool = False  # expected outputs from the reference on float64 copies of the inputs
    seeds: int = 3  # correctness input sets per workload
    timing: dict[str, Any] = field(default_factory=dict)
    eval_dir: str = ""  # writable for the worker
    triton_cache: str = ""  # writable for the worker
    ceilings_dir: str = ""  # the checker's, never the worker's
    confine: bool = True
    timeout_s: float = 300.0
    startup_timeout_s: float = 180.0

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> EvalSpec:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalSpec:
        data = dict(data)
        data["workloads"] = [WorkloadSpec(**w) for w in data["workloads"]]
        data["outputs"] = tuple(data["outputs"])
        data["tolerance"] = {k: tuple(v) for k, v in data["tolerance"].items()}
        data["forbidden_calls"] = tuple(data["forbidden_calls"])
        data["allowed_torch_ops"] = tuple(data["allowed_torch_ops"])
        return cls(**data)


def group_to_json(specs: list[EvalSpec]) -> str:
    """One line for an eval of several solutions timed together (same task, workloads, seed and options; each its
    own private copy, folders and worker)."""
    return json.dumps({"group": [asdict(spec) for spec in specs]})


def specs_from_line(text: str) -> list[EvalSpec]:
    """The specs of one line: a single eval's, or a group's."""
    data = json.loads(text)
    if isinstance(data, dict) and isinstance(data.get("group"), list):
        return [EvalSpec.from_dict(one) for one in data["group"]]
    return [EvalSpec.from_dict(data)]
