"""The device's measured ceilings behind SOL, one per resource of the SOL model (workbench/speed_of_light.py).

Measured once per device (name, driver, torch) by the microbenchmarks in microbench.py, cached as JSON with when and
how, so every later eval on that device uses the same figures and says where they came from. A ceiling that cannot be
measured here is recorded as unavailable with the reason, never given a figure.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.speed_of_light import BY_CEILING, SolTime, datasheet, sol_time

# What any GPU can do, per ceiling: a cached figure outside it (a damaged or planted file) is measured again. The
# cache lives in the checker's folder, which no solution's worker can see; this is the second line.
PLAUSIBLE: dict[str, tuple[float, float]] = {
    "bandwidth_gbps": (10, 20_000),
    "matmul_tflops": (1, 10_000),
    "tf32_tflops": (0.5, 5_000),
    "fp8_tflops": (1, 20_000),
    "fp32_tflops": (0.1, 1_000),
    "int32_tops": (0.05, 1_000),
    "sfu_tops": (0.01, 500),
    "step_us": (0.005, 100),
}
CEILING_KEYS = tuple(PLAUSIBLE)
# Never taken as unavailable from the cache: every CUDA GPU has them, and SOL's check of a timing rests on them.
ALWAYS_MEASURED = ("bandwidth_gbps", "matmul_tflops")

Measure = Callable[[list[str]], tuple[dict[str, float], dict[str, str]]]


def cache_path() -> Path:
    from workbench.harness.runner import ceilings_cache_dir

    return ceilings_cache_dir() / "ceilings.json"


def _device_key(device: Any) -> str:
    import torch

    props = torch.cuda.get_device_properties(device)
    driver = getattr(torch.version, "cuda", None)
    return f"{props.name}|sm{props.major}{props.minor}|cuda{driver}|torch{torch.__version__}"


def device_ceilings(device: Any) -> dict[str, Any]:
    """Cached ceilings for this CUDA device, measuring first those that are missing or implausible."""
    key = _device_key(device)
    return cached_ceilings(cache_path(), key, lambda wanted: measure(device, wanted))


def plausible(key: str, value: Any) -> bool:
    low, high = PLAUSIBLE[key]
    return not isinstance(value, bool) and isinstance(value, int | float) and low <= value <= high


def cached_ceilings(path: Path, key: str, measure_fn: Measure) -> dict[str, Any]:
    """The ceilings cached at `path` for device `key`; each missing or implausible one measured (`measure_fn` gets
    their keys) and the entry written back. A ceiling cached as unavailable stays so, except the two that every
    CUDA GPU has."""
    cached = _read(path)
    entry = cached.get(key) if isinstance(cached.get(key), dict) else {}
    assert isinstance(entry, dict)
    unavailable = {k: str(v) for k, v in (entry.get("unavailable") or {}).items() if k in PLAUSIBLE}
    # a figure measured by an older form of its benchmark (its recorded method differs) is measured again
    recorded = entry.get("methods")
    methods_then: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    stale = {k for k in CEILING_KEYS if k in methods_then and methods_then[k] != _method(k)}
    kept = {k: float(entry[k]) for k in CEILING_KEYS if plausible(k, entry.get(k)) and k not in stale}
    wanted = [k for k in CEILING_KEYS if k not in kept and (k not in unavailable or k in ALWAYS_MEASURED)]
    if not wanted:
        return {**entry, "source": f"cached in {path}, measured {entry.get('measured_at', '?')}"}
    values, reasons = measure_fn(wanted)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    methods = dict(entry.get("methods") or {})
    methods.update({k: _method(k) for k in values})
    fresh = {k: v for k, v in values.items() if plausible(k, v)}
    reasons.update({k: f"measured {v}, outside {PLAUSIBLE[k]}" for k, v in values.items() if k not in fresh})
    unavailable = {k: v for k, v in {**unavailable, **reasons}.items() if k not in fresh and k not in kept}
    new = {"device": key, "gpu": key.split("|")[0], **kept, **fresh, "unavailable": unavailable, "methods": methods,
           "method": "; ".join(f"{k}: {m}" for k, m in methods.items()), "measured_at": now}  # fmt: skip
    cached[key] = new
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cached, indent=2))
    tmp.replace(path)
    return {**new, "source": f"measured {', '.join(wanted)} now on {key}, cached in {path}"}


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _method(key: str) -> str:
    from workbench.harness.microbench import BENCHMARKS

    return BENCHMARKS[key][0]


def measure(device: Any, wanted: Iterable[str] = CEILING_KEYS) -> tuple[dict[str, float], dict[str, str]]:
    """Each wanted ceiling measured on `device`: (figures, {key: why it is unavailable}). On a machine without a
    CUDA device every ceiling is unavailable; a benchmark that fails is unavailable with its error."""
    from workbench.harness.microbench import BENCHMARKS, Unavailable

    values: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for key in wanted:
        try:
            values[key] = float(BENCHMARKS[key][1](device))
        except Unavailable as exc:
            reasons[key] = str(exc)
        except Exception as exc:  # a benchmark's failure costs its ceiling, never the eval
            reasons[key] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
    return values, reasons


def sol(work: dict[str, float], ceilings: dict[str, Any]) -> SolTime:
    """SOL of a workload's work on the measured ceilings."""
    return sol_time(work, {k: v for k, v in ceilings.items() if k in BY_CEILING})


def datasheet_sol(work: dict[str, float], ceilings: dict[str, Any]) -> SolTime | None:
    """SOL of the same work on the board's datasheet figures (None for a board the table lacks)."""
    sheet = datasheet(ceilings.get("gpu") or str(ceilings.get("device", "")).split("|")[0])
    return sol_time(work, sheet) if sheet else None
