"""The environment block: what both conditions of a pair are told about the machine, the timing and the scoring.

Hardware facts used to reach only the guided agent (its guidance named the SM count) or the agents of some tasks
(a few task.md files named the GPU); now every session's first message carries one block with the device's facts,
the measured ceilings, the versions, how kernels are timed and how the session is scored. The device is asked in a
short subprocess (the session process never loads torch), once per GPU and driver, and cached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from workbench.speed_of_light import ceilings_text

# Vendor datasheet figures (dense, no sparsity) of the GPUs we know, for the roofline beside the measured one.
DATASHEET: dict[str, tuple[float, float]] = {  # name fragment -> (HBM TB/s, bf16 tensor-core TFLOP/s)
    "H200": (4.8, 989.0),
    "H100 SXM": (3.35, 989.0),
    "H100 80GB HBM3": (3.35, 989.0),
    "H100 PCIe": (2.0, 756.0),
    "A100-SXM4-80GB": (2.039, 312.0),
    "A100-SXM4-40GB": (1.555, 312.0),
    "A100 80GB PCIe": (1.935, 312.0),
    "L40S": (0.864, 362.0),
}

_PROBE = """
import json, torch
p = torch.cuda.get_device_properties(0)
l2 = getattr(p, "L2_cache_size", 0)
print(json.dumps({"name": p.name, "capability": f"{p.major}.{p.minor}", "sms": p.multi_processor_count,
                  "memory_gib": round(p.total_memory / 2**30, 1), "l2_mib": round(l2 / 2**20, 1),
                  "smem_per_sm_kib": getattr(p, "shared_memory_per_multiprocessor", 0) // 1024,
                  "regs_per_sm": getattr(p, "regs_per_multiprocessor", 0), "cuda": torch.version.cuda}))
"""


@dataclass(frozen=True)
class Scoring:
    """How a session is scored; the rule the prompt, the docs and the report state."""

    counted: str = "final"  # "final": the last submission counts (the paper's rule); "best": the best correct one
    incorrect_speedup: float = 0.5


def device_facts(cache: Path) -> dict[str, Any] | None:
    """The GPU's facts (name, SMs, memory, L2, shared memory, capability), asked once a GPU and driver and cached in
    `cache`; None without a GPU or when the probe fails (the block then says what is not known)."""
    key = _gpu_key()
    if key is None:
        return None
    try:
        known = json.loads(cache.read_text()) if cache.exists() else {}
    except (OSError, ValueError):
        known = {}
    if key in known:
        return dict(known[key])
    try:
        out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=True)
        facts = json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None
    known[key] = facts
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=2))
    except OSError:
        pass  # a cache is an optimisation
    return facts


def _gpu_key() -> str | None:
    if os.environ.get("TRITON_INTERPRET") == "1":
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10, check=True)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    line = out.stdout.strip().splitlines()[0] if out.stdout.strip() else ""
    return line or None


def measured_ceilings(path: Path, gpu_name: str) -> dict[str, Any] | None:
    """The harness's measured copy bandwidth and bf16 matmul rate for this GPU, when an eval has measured them."""
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    for key, entry in cached.items():
        if isinstance(entry, dict) and key.split("|")[0] == gpu_name:
            return entry
    return None


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def environment_block(mode: str, facts: dict[str, Any] | None, ceilings: dict[str, Any] | None, budget: int,
                      scoring: Scoring = Scoring()) -> str:  # fmt: skip
    """The same text for a guided and an unguided session on the same machine."""
    lines = ["## Environment"]
    if mode != "cuda":
        lines.append("- No GPU: evaluations run in Triton's CPU interpreter and check correctness only; timing is "
                     "unavailable, so speedups and SOL are not reported.")  # fmt: skip
    elif facts is None:
        lines.append("- A CUDA GPU (its properties could not be read).")
    else:
        lines.append(f"- GPU: {facts['name']} (compute capability {facts['capability']}), {facts['sms']} SMs, "
                     f"{facts['memory_gib']} GiB of device memory, {facts['l2_mib']} MiB of L2, "
                     f"{facts['smem_per_sm_kib']} KiB of shared memory per SM, CUDA {facts.get('cuda')}.")  # fmt: skip
        sheet = next((v for k, v in DATASHEET.items() if k in facts["name"]), None)
        if sheet:
            lines.append(f"- Datasheet: {sheet[0]} TB/s HBM bandwidth, {sheet[1]:.0f} TFLOP/s dense bf16.")
        if ceilings:
            lines.append(f"- Measured on this GPU: {ceilings_text(ceilings)} (copy: bytes read + written); SOL time = "
                         "the largest over resources of the problem's minimum work on it over its ceiling, reported "
                         "with the binding resource.")  # fmt: skip
        else:
            lines.append("- Its ceilings (copy bandwidth, matmul and CUDA-core rates, one dependent step's latency) "
                         "are measured at the first timed evaluation.")  # fmt: skip
    lines.append(f"- torch {package_version('torch')}, Triton {package_version('triton')}, Python "
                 f"{sys.version.split()[0]}.")  # fmt: skip
    if mode == "cuda":
        lines.append("- Timing: CUDA events around each call, the L2 flushed before each, fresh inputs every round, "
                     "the reference timed in alternating batches; `evaluate` uses one seed and short timing, `submit` "
                     "three seeds, full timing and hidden variations of the workloads' shapes.")  # fmt: skip
    counted = "your last submission" if scoring.counted == "final" else "your best correct submission"
    lines += [
        "- Scoring: a task's speedup is the geometric mean over its timed workloads of reference time / your time "
        "(the workloads marked for the CPU interpreter are checked but not timed). "
        + counted.capitalize()
        + f" counts; if it is incorrect, the task scores {scoring.incorrect_speedup} as a speedup. A session that ends "
        "(out of turns or time) without a correct submission submits its best correct evaluation for you.",
        f"- You have {budget} turns; you may call several tools in one turn.",
    ]
    return "\n".join(lines)


def current_environment(mode: str, budget: int, scoring: str = "final") -> str:
    """The block for a session starting now on this machine: the GPU asked (once, cached beside the harness's
    ceilings) and its measured ceilings when an eval has measured them."""
    rule = Scoring(counted=scoring)
    if mode != "cuda":
        return environment_block(mode, None, None, budget, rule)
    from workbench.harness.runner import ceilings_cache_dir

    folder = ceilings_cache_dir()
    facts = device_facts(folder / "device.json")
    ceilings = measured_ceilings(folder / "ceilings.json", facts["name"]) if facts else None
    return environment_block(mode, facts, ceilings, budget, rule)
