"""GPU timing: L2 flushed before every sample, CUDA events (or graph replay) around the call,
input sets rotated, samples added until the standard error is under a target or a budget runs out.
The reference and the solution are sampled in alternating batches, after a warm-up long enough for
the clocks to settle, so that both are timed at the same clocks."""

from __future__ import annotations

import contextlib
import gc
import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from workbench.harness.result import Latency
from workbench.harness.verify import AHEAD_CAP_MS, HOST_MS_PER_CALL

MIN_SAMPLES = 10
MAX_BATCH = 10  # samples recorded between two host synchronisations


@dataclass
class TimingOptions:
    target_rel_err: float = 0.005  # stop when stderr < 0.5% of the mean ...
    budget_s: float = 3.0  # ... or when this much wall time was spent on one function
    max_samples: int = 2000
    warmup: int = 3
    warmup_s: float = 0.2  # then this long of back-to-back calls, so that the clocks settle under the load
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


WAIT_CALIBRATION_CYCLES = 1_000_000  # about half a millisecond at an H200's clocks


def device_wait_rate(device: torch.device) -> float | None:
    """Clock cycles a millisecond of torch.cuda._sleep (a spin kernel) takes on this device now, by CUDA events; None
    where there is no such kernel. Measured in the process that trusts the figure, right before it times."""
    wait = getattr(torch.cuda, "_sleep", None)
    if device.type != "cuda" or wait is None:
        return None
    rates = []
    for _ in range(3):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        wait(WAIT_CALIBRATION_CYCLES)
        end.record()
        end.synchronize()
        rates.append(WAIT_CALIBRATION_CYCLES / max(start.elapsed_time(end), 1e-6))
    return statistics.median(rates)


def ahead_ms(issue_ms: float | None, calls: int) -> float:
    """How long the device should wait before a batch for the host to issue all of its calls first: a quarter more
    than the host took to issue the last such batch (the wall clock's per-call allowance before there is one), at
    most AHEAD_CAP_MS."""
    wanted = calls * HOST_MS_PER_CALL + 0.5 if issue_ms is None else 1.25 * issue_ms + 0.2
    return min(AHEAD_CAP_MS, wanted)


def issued_ahead(cycles: int, issue: Callable[[], None]) -> float:
    """issue() a timed batch with the collector off, the device first told to wait `cycles` so that the whole batch
    is queued before the device reaches it; returns the host's ms to issue it (which sizes the next wait)."""
    with collector_paused():
        if cycles > 0:
            torch.cuda._sleep(cycles)
        started = time.perf_counter()
        issue()
        return (time.perf_counter() - started) * 1e3


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off: a collection's pause inside a timed batch leaves the GPU idle between
    calls (outside their events, where the wall clock sees it, or inside them, where a sample does)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


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


def time_functions(
    fns: Sequence[Callable[..., Any]],
    input_sets: Sequence[tuple[Any, ...]],
    flush: torch.Tensor,
    options: TimingOptions,
    names: Sequence[str] | None = None,
) -> list[Timed]:
    """Time each function over the same rotating input sets; returns each one's latency and last outputs.

    The functions take their samples in alternating batches, not one after the other: a GPU at its power limit
    runs slower as it heats, and its clocks climb from idle only under load, so a function timed second (or first,
    on a cold GPU) would otherwise be measured at another clock than the one it is compared with. Each batch is
    an NVTX range under the function's name (when names are given), for Nsight."""
    outputs: list[list[Any]] = [[None] * len(input_sets) for _ in fns]
    per_call = [_first_calls(fn, input_sets, out, options) for fn, out in zip(fns, outputs)]
    _settle(fns, input_sets, outputs, options.warmup_s)
    batches = [max(1, min(MAX_BATCH, int(options.budget_s / 10 / max(t, 1e-6)))) for t in per_call]
    replays: list[list[Callable[[], Any]] | None] = [None] * len(fns)
    notes: list[str | None] = [None] * len(fns)
    if options.timer == "graph":
        for i, fn in enumerate(fns):
            replays[i], notes[i] = _capture(fn, input_sets, outputs[i])

    # one set of events per function, made before sampling: a batch records into the first `size` of them
    events = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(b)]
              for b in batches]  # fmt: skip

    rate = device_wait_rate(flush.device)
    issue_ms: list[float | None] = [None] * len(fns)

    def take_batch(i: int, first: int, size: int) -> list[float]:
        starts, ends = zip(*events[i][:size])
        graphs = replays[i]

        def issue() -> None:
            for b in range(size):
                which = (first + b) % len(input_sets)
                flush.zero_()
                starts[b].record()
                if graphs is not None:
                    graphs[which]()
                else:
                    outputs[i][which] = fns[i](*input_sets[which])
                ends[b].record()

        with nvtx_range(names[i]) if names else contextlib.nullcontext():
            cycles = 0 if rate is None else int(ahead_ms(issue_ms[i], size) * rate)
            issue_ms[i] = issued_ahead(cycles, issue)
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]

    samples, stops = sample_in_rounds(take_batch, batches, options)
    timed = []
    for i, got in enumerate(samples):
        note = "; ".join(n for n in (notes[i], stops[i]) if n) or None
        latency = Latency(statistics.median(got), statistics.fmean(got), standard_error(got), len(got))
        timed.append(Timed(latency, outputs[i], note))
    return timed


def sample_in_rounds(
    take_batch: Callable[[int, int, int], list[float]],
    batches: Sequence[int],
    options: TimingOptions,
    clock: Callable[[], float] = time.perf_counter,
    active: Callable[[int], bool] = lambda i: True,
) -> tuple[list[list[float]], list[str | None]]:
    """Rounds of one batch per function (take_batch(function, first input set, size) -> samples in ms) until
    every function's standard error is under the target, or the budget (per function) runs out.

    A function already under the target keeps sampling while another is not, so that all of them stay under the
    same conditions to the end; one at max_samples stops, and so does one no longer `active` (a solution rejected
    while it was timed beside others: the rest go on without it). Returns the samples and, per function, why it
    stopped short of the target (None when it reached it)."""
    samples: list[list[float]] = [[] for _ in batches]
    started = clock()
    while True:
        for i, size in enumerate(batches):
            if len(samples[i]) < options.max_samples and active(i):
                samples[i].extend(take_batch(i, len(samples[i]), min(size, options.max_samples - len(samples[i]))))
        converged = [
            not active(i)
            or (len(got) >= MIN_SAMPLES and standard_error(got) <= options.target_rel_err * statistics.fmean(got))
            for i, got in enumerate(samples)
        ]
        if all(converged):
            return samples, [None] * len(batches)
        out_of_budget = clock() - started > options.budget_s * len(batches)
        if out_of_budget or all(len(got) >= options.max_samples for got in samples):
            return samples, [None if ok else _stopped_short(got) for ok, got in zip(converged, samples)]


def standard_error(samples: Sequence[float]) -> float:
    """Of the mean; infinite for fewer than two samples."""
    return statistics.stdev(samples) / math.sqrt(len(samples)) if len(samples) > 1 else math.inf


def _stopped_short(samples: Sequence[float]) -> str:
    err, mean = standard_error(samples), statistics.fmean(samples)
    if not math.isfinite(err):
        reached = "a single sample"
    else:
        reached = f"{err / mean:.2%} standard error" if mean > 0 else f"{err:.3g} ms standard error"
    return f"stopped by the budget at {reached} after {len(samples)} samples"


def _first_calls(
    fn: Callable[..., Any], input_sets: Sequence[tuple[Any, ...]], outputs: list[Any], options: TimingOptions
) -> float:
    """Every input set once (so each has an output to check again after timing), at least options.warmup calls;
    returns the wall time of one call."""
    started, calls = time.perf_counter(), 0
    while calls < max(len(input_sets), options.warmup):
        outputs[calls % len(input_sets)] = fn(*input_sets[calls % len(input_sets)])
        torch.cuda.synchronize()
        calls += 1
        if calls >= len(input_sets) and time.perf_counter() - started > options.budget_s / 4:
            break  # a slow function: enough warm-up
    return (time.perf_counter() - started) / calls


def _settle(
    fns: Sequence[Callable[..., Any]], input_sets: Sequence[tuple[Any, ...]], outputs: list[list[Any]], seconds: float
) -> None:
    """Keep the GPU busy with the functions themselves for a while: from idle its clocks take this long to reach
    the level they hold under this load."""
    until, k = time.perf_counter() + seconds, 0
    while time.perf_counter() < until:
        which = k % len(input_sets)
        for i, fn in enumerate(fns):
            outputs[i][which] = fn(*input_sets[which])
        torch.cuda.synchronize()
        k += 1


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
