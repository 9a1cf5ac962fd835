"""The device's measured ceilings behind SOL: copy bandwidth and bf16 matmul rate.

Measured once per device (name, driver, torch), cached as JSON with when and how, so every later
eval on that device uses the same figures and says where they came from.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import torch

COPY_BYTES = 2 << 30  # 2 GiB copied: far beyond the L2, long enough for clean event timing
MATMUL_N = 8192


def cache_path() -> Path:
    from workbench.harness.runner import ceilings_cache_dir

    return ceilings_cache_dir() / "ceilings.json"


def _device_key(device: torch.device) -> str:
    props = torch.cuda.get_device_properties(device)
    driver = getattr(torch.version, "cuda", None)
    return f"{props.name}|sm{props.major}{props.minor}|cuda{driver}|torch{torch.__version__}"


def device_ceilings(device: torch.device) -> dict[str, Any]:
    """Cached ceilings for this device, measuring them first if there are none."""
    path = cache_path()
    key = _device_key(device)
    cached: dict[str, Any] = {}
    if path.exists():
        try:
            cached = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            cached = {}
    if key in cached and _plausible(cached[key]):
        return {**cached[key], "source": f"cached in {path}, measured {cached[key]['measured_at']}"}
    measured = measure(device)
    cached[key] = measured
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cached, indent=2))
    tmp.replace(path)
    return {**measured, "source": f"measured now on {key}, cached in {path}"}


def _plausible(entry: Any) -> bool:
    """A cached entry within what any GPU can do; anything else (a damaged or planted file) is measured again. The
    cache lives in the checker's folder, which no solution's worker can see; this is the second line."""
    try:
        return 10 <= float(entry["bandwidth_gbps"]) <= 20_000 and 1 <= float(entry["matmul_tflops"]) <= 10_000
    except (KeyError, TypeError, ValueError):
        return False


def _median_ms(fn: Any, reps: int) -> float:
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def measure(device: torch.device) -> dict[str, Any]:
    """Copy bandwidth (bytes read + written per second) and bf16 matmul rate on random data."""
    copy_ms, mm_ms = _copy_ms(device), _matmul_ms(device)
    return {
        "device": _device_key(device),
        "bandwidth_gbps": 2 * COPY_BYTES / (copy_ms * 1e-3) / 1e9,
        "matmul_tflops": 2 * MATMUL_N**3 / (mm_ms * 1e-3) / 1e12,
        "method": f"median of 20 copies of {COPY_BYTES >> 20} MiB (read+write) and of 10 bf16 "
        f"{MATMUL_N}^3 torch.mm on random data, CUDA events",
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _copy_ms(device: torch.device) -> float:
    src = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    return _median_ms(lambda: dst.copy_(src), 20)


def _matmul_ms(device: torch.device) -> float:
    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(MATMUL_N, MATMUL_N, device=device, dtype=torch.bfloat16, generator=gen)
    b = torch.randn(MATMUL_N, MATMUL_N, device=device, dtype=torch.bfloat16, generator=gen)
    return _median_ms(lambda: torch.mm(a, b), 10)


def sol_ms(bytes_moved: float, flops: float, ceilings: dict[str, Any]) -> float:
    """The speed-of-light time: the larger of bytes over bandwidth and FLOPs over matmul rate."""
    return max(bytes_moved / (ceilings["bandwidth_gbps"] * 1e9), flops / (ceilings["matmul_tflops"] * 1e12)) * 1e3
