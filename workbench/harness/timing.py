"""GPU timing: L2 flushed before every sample, CUDA events (or graph replay) around the call,
input sets rotated, samples added until the standard error is under a target or a budget runs out."""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from workbench.harness.result import Latency

MIN_SAMPLES = 10
MAX_BATCH = 10  # samples recorded between two host synchronisations


@dataclass
class TimingOptions:
    target_rel_err: float = 0.005  # stop when stderr < 0.5% of the mean ...
    budget_s: float = 3.0  # ... or when this much wall time was spent on one function
    max_samples: int = 2000
    warmup: int = 3
    timer: str = "events"  # or "graph"
    reference: bool = True  # time the reference too (a ladder rung compared with its expert need not)


@dataclass
class Timed:
    latency: Latency
    outputs: list[Any]  # the last output produced for each input set, to be checked again
    note: str | None = None


def flush_buffer(device: torch.device) -> torch.Tensor:
    """A buffer several times the L2; writing it evicts whatever a previous call left there."""
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 64 << 20
    return torch.empty(max(4 * l2, 256 << 20) // 4, dtype=torch.int32, device=device)


@contextlib.contextmanager
def nvtx_range(name: str) -> Iterator[None]:
    """A named range for Nsight; torch's NVTX binding, else the nvtx package, else nothing."""
    pop: Callable[[], Any] | None = None
    try:
        torch.cuda.nvtx.range_push(name)
        pop = torch.cuda.nvtx.range_pop
    except Exception:  # CPU builds have no NVTX binding
        try:
            import nvtx  # type: ignore[import-not-found]

            nvtx.push_range(name)
            pop = nvtx.pop_range
        except Exception:
            pass
    try:
        yield
    finally:
        if pop is not None:
            pop()


def time_function(
    fn: Callable[..., Any], input_sets: Sequence[tuple[Any, ...]], flush: torch.Tensor, options: TimingOptions
) -> Timed:
    """Time fn over rotating input sets. Returns the latency and each set's last output."""
    outputs: list[Any] = [None] * len(input_sets)
    warm_started, calls = time.perf_counter(), 0
    # every input set runs at least once, so each has an output to check again after timing
    while calls < max(len(input_sets), options.warmup):
        outputs[calls % len(input_sets)] = fn(*input_sets[calls % len(input_sets)])
        torch.cuda.synchronize()
        calls += 1
        if calls >= len(input_sets) and time.perf_counter() - warm_started > options.budget_s / 4:
            break  # a slow function: enough warm-up
    per_call = (time.perf_counter() - warm_started) / calls
    batch = max(1, min(MAX_BATCH, int(options.budget_s / 10 / max(per_call, 1e-6))))
    note = None
    replays: list[Callable[[], Any]] | None = None
    if options.timer == "graph":
        replays, note = _capture(fn, input_sets, outputs)
    samples: list[float] = []
    started = time.perf_counter()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(batch)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(batch)]
    k = 0
    while True:
        for b in range(batch):
            which = k % len(input_sets)
            flush.zero_()
            starts[b].record()
            if replays is not None:
                replays[which]()
            else:
                outputs[which] = fn(*input_sets[which])
            ends[b].record()
            k += 1
        torch.cuda.synchronize()
        samples.extend(s.elapsed_time(e) for s, e in zip(starts, ends))
        mean = statistics.fmean(samples)
        err = statistics.stdev(samples) / math.sqrt(len(samples)) if len(samples) > 1 else math.inf
        if len(samples) >= MIN_SAMPLES and err <= options.target_rel_err * mean:
            break
        if time.perf_counter() - started > options.budget_s or len(samples) >= options.max_samples:
            reached = f"{err / mean:.2%} standard error" if math.isfinite(err) else "a single sample"
            note = (note + "; " if note else "") + f"stopped by the budget at {reached} after {len(samples)} samples"
            break
    latency = Latency(statistics.median(samples), mean, err, len(samples))
    return Timed(latency, outputs, note)


def _capture(
    fn: Callable[..., Any], input_sets: Sequence[tuple[Any, ...]], outputs: list[Any]
) -> tuple[list[Callable[[], Any]] | None, str | None]:
    """One CUDA graph per input set; the graph's output tensors stand in for each set's output."""
    replays = []
    try:
        for which, args in enumerate(input_sets):
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                outputs[which] = fn(*args)
            replays.append(graph.replay)
    except Exception as exc:  # a solution that syncs or allocates on the host cannot be captured
        torch.cuda.synchronize()
        return None, f"graph capture failed ({type(exc).__name__}), timed with events"
    return replays, "CUDA graph replay"
