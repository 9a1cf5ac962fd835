"""One workload, checked on the trusted side: correctness over fresh seeds, then (on CUDA) timing whose every
solution batch is verified against the checker's own clock and whose outputs, picked after the fact, are compared.

Runs in the checker process. The worker is only ever asked to make inputs from a seed, call the solution, hand
back copies, and run timed batches; every decision is taken here.
"""

from __future__ import annotations

import gc
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from workbench.harness.compare import compare_outputs, inputs_unchanged
from workbench.harness.result import Latency, WorkloadResult
from workbench.harness.solution_side.main import HOST_STEPS, places
from workbench.harness.spec import EvalSpec, WorkloadSpec, derive_seed
from workbench.harness.timing import (
    TimingOptions,
    ahead_ms,
    collector_paused,
    device_wait_rate,
    flush_buffer,
    issued_ahead,
    nvtx_range,
    sample_in_rounds,
    standard_error,
)
from workbench.harness.verify import check_batch, check_plausible, check_tail
from workbench.harness.worker_handle import Worker, WorkerGone

WHOLE_INPUTS_BYTES = 64 << 20  # inputs up to this size are compared whole after each checked call ...
SAMPLED_ELEMENTS = 1 << 16  # ... larger ones at this many places per tensor, picked after the call
INPUT_SET_BYTES = 4 << 30  # rotate among as many fresh input sets as fit in this much memory (2-4 sets)
BATCH_ATTEMPTS = 3  # a timed batch the wall clock or the tail disagrees with is tried again, on fresh inputs
_VERIFY = random.SystemRandom()  # which timed call's outputs are compared: unpredictable to the worker

# What the worker's refusal kinds mean as failures in the result (docs/eval-result.md).
FAILURES = {"forbidden-op": "forbidden-op", "refused": "refused", "no-launch": "no-launch",
            "not-a-tensor": "not-a-tensor", "error": "error"}  # fmt: skip


CI_SIZED = "CI-sized workload (interpret = true): correctness only, its time is launch overhead"


class Rejected(Exception):
    def __init__(self, failure: str, message: str) -> None:
        super().__init__(message)
        self.failure, self.message = failure, message


@dataclass
class TaskCode:
    """The task's own inputs and reference, loaded in the checker from the project's task folder."""

    make_inputs: Callable[..., Any]
    reference: Callable[..., Any]


class WorkloadCheck:
    def __init__(
        self, spec: EvalSpec, code: TaskCode, worker: Worker, deadline: Callable[[], float], phase: Callable[[str], Any]
    ) -> None:
        self.spec, self.code, self.worker, self.remaining, self.phase = spec, code, worker, deadline, phase
        self.device = torch.device("cuda" if spec.mode == "cuda" else "cpu")
        self.ceilings: dict[str, Any] | None = None
        self.encodings = {name: getattr(torch, dtype) for name, dtype in spec.encodings.items()}

    def compare(self, got: list[torch.Tensor], expected: Any) -> Any:
        """The worker's outputs against the reference's, encoded outputs (fp8 bit patterns) as decoded values."""
        return compare_outputs(tuple(got) if len(got) != 1 else got[0], expected, self.spec.outputs,
                               self.spec.tolerance, self.encodings)  # fmt: skip

    def expected_outputs(self, args: tuple[Any, ...]) -> Any:
        """What a correct solution's outputs must match on these inputs: the reference's outputs, or with the task's
        `[expected] float64` the reference's on float64 copies of the inputs, rounded to the inputs' float dtype."""
        with torch.no_grad():
            if not self.spec.expected_float64:
                return self.code.reference(*args)
            return reference_in_float64(self.code.reference, args)

    def ask(self, header: dict[str, Any], device: torch.device | None = None) -> tuple[dict[str, Any], list[Any]]:
        reply, tensors = self.worker.request(header, self.remaining(), device)
        if not reply.get("ok"):
            kind, message = error_of(reply)
            raise Rejected(FAILURES.get(kind, "error"), message)
        return reply, tensors

    def run(self, w: WorkloadSpec, result: WorkloadResult, time_it: Callable[[], Any] | None) -> None:
        try:
            with self.phase("correctness"):
                self._correctness(w, result)
            result.correct = True
            if self.spec.mode != "cuda":
                result.timing_note = "not timed in interpret mode (CPU interpreter): correctness only"
            elif w.hidden:
                result.timing_note = "hidden workload: correctness only"
            elif not w.timed:
                result.timing_note = (
                    "CI-sized workload (interpret = true): correctness only, its time is launch overhead"
                )
            elif time_it is not None:
                with time_it(), self.phase("timing"):
                    self._time(w, result)
        except Rejected as exc:
            reject(result, exc)

    def _correctness(self, w: WorkloadSpec, result: WorkloadResult) -> None:
        for s in range(self.spec.seeds):
            seed = derive_seed(self.spec.seed, w.name, "check", s)
            result.seeds.append(seed)
            # the parts of the phase are timed apart (phases_s "correctness: ..."), to see where a slow eval goes
            with self.phase("correctness: inputs"):
                args = tuple(self.code.make_inputs(dict(w.params), seed, self.device))
                key = f"check{s}"
                self.ask({"op": "inputs", "key": key, "params": w.params, "seed": seed})
            with self.phase("correctness: reference"):
                expected = self.expected_outputs(args)
            with self.phase("correctness: call"):
                self.ask({"op": "call", "key": key})
            with self.phase("correctness: fetch"):
                _, got = self.ask({"op": "fetch", "key": key, "what": "outputs"}, self.device)
                tensor_args = tuple(a for a in args if isinstance(a, torch.Tensor))
                before, after = self._inputs_after(key, tensor_args)
                self.ask({"op": "drop", "keys": [key]})
            result.seeds_checked = s + 1
            if len(after) != len(tensor_args):
                raise Rejected("error", f"seed {seed}: the worker made {len(after)} input tensors, the task makes more")
            with self.phase("correctness: compare"):
                changed = inputs_unchanged(before, after)
                if changed:
                    raise Rejected("input-modified", f"seed {seed}: {changed}")
                cmp = self.compare(got, expected)
            result.max_abs_err = max(result.max_abs_err or 0.0, cmp.max_abs_err)
            result.max_rel_err = max(result.max_rel_err or 0.0, cmp.max_rel_err)
            if not cmp.ok:
                result.mismatches, result.first_mismatches, result.worst = cmp.mismatches, cmp.first, cmp.worst
                raise Rejected(cmp.failure or "mismatch", f"seed {seed}: {cmp.message}")
            del args, expected, got, after

    def _inputs_after(self, key: str, args: tuple[torch.Tensor, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The worker's inputs after a call, to compare with ours: whole when small, else at places picked now (the
        worker's copy is its own, so this catches a solution that writes into its inputs, not a lying worker)."""
        if sum(a.numel() * a.element_size() for a in args) <= WHOLE_INPUTS_BYTES:
            _, after = self.ask({"op": "fetch", "key": key, "what": "inputs"}, self.device)
            return args, tuple(after)
        seed = _VERIFY.randrange(1 << 31)
        _, after = self.ask({"op": "sample", "key": key, "seed": seed, "count": SAMPLED_ELEMENTS}, self.device)
        return tuple(a.reshape(-1)[places(a, seed, SAMPLED_ELEMENTS)] for a in args), tuple(after)

    def _time(self, w: WorkloadSpec, result: WorkloadResult) -> None:
        time_together([self], w, [result])

    def ping_ms(self) -> float:
        started = time.perf_counter()
        self.ask({"op": "ping"})
        return (time.perf_counter() - started) * 1e3


def reject(result: WorkloadResult, exc: Rejected) -> None:
    """A verdict against the solution on this workload; a latency stays only beside a wrong output it produced."""
    result.correct = False
    result.failure, result.error = exc.failure, exc.message
    if exc.failure not in ("mismatch", "unwritten", "nonfinite", "shape", "dtype", "input-modified"):
        result.latency_ms = result.reference_ms = result.speedup = result.sol_fraction = None


def time_together(checks: list[WorkloadCheck], w: WorkloadSpec, results: list[WorkloadResult]) -> None:
    """Time the reference and each solution (one worker each) in alternating batches over the same fresh input sets,
    so that every one of them is timed at the same clocks and temperatures: a ladder's rungs, or an expert beside a
    peer, compare as fairly as a solution with the reference. With one solution a rejection is raised; with several
    it is that solution's result, and the others are timed on without it."""
    from workbench.harness.ceilings import datasheet_sol, device_ceilings, sol

    lead = checks[0]  # the task, device and options are the same for every check of one eval
    options = TimingOptions(**lead.spec.timing)
    probe = lead.code.make_inputs(dict(w.params), derive_seed(lead.spec.seed, w.name, "time", 10**6), lead.device)
    set_bytes = sum(x.numel() * x.element_size() for x in probe if isinstance(x, torch.Tensor))
    # each solution's worker holds its own copy of every set: the memory for sets is shared among them
    n_sets = max(2, min(4, INPUT_SET_BYTES // len(checks) // max(set_bytes, 1)))
    del probe
    ceilings = device_ceilings(lead.device)
    flush = flush_buffer(lead.device)
    flush_ms = _flush_ms(flush)
    round_trips = [max(check.ping_ms() for _ in range(5)) for check in checks]
    gc.collect()  # then none during the batches (collector_paused), and little left for one between them
    rounds = _Rounds(
        checks, results, w, n_sets, flush, flush_ms, round_trips, device_wait_rate(lead.device), options.reference
    )
    functions = len(checks) + (1 if options.reference else 0)
    rounds.settle(options.warmup_s, options.reference)
    with nvtx_range(f"{w.name}/timing"):
        samples, stops = sample_in_rounds(rounds.take_batch if options.reference else rounds.solution_only,
                                          [n_sets] * functions, options, active=rounds.active)  # fmt: skip
    reference = _latency(rounds.reference_means, len(samples[0])) if options.reference else None
    bound = sol(w.sol_work, ceilings)
    sheet = datasheet_sol(w.sol_work, ceilings)
    for k, side in enumerate(rounds.sides):
        if not side.active:
            continue
        at = k + (1 if options.reference else 0)
        try:
            _finish(side, rounds, reference, bound, sheet, samples[at], stops[at])
        except Rejected as exc:
            rounds.reject(k, exc)
    for check in checks:
        check.ceilings = ceilings


def _finish(side: _Side, rounds: _Rounds, reference: Latency | None, bound: Any, sheet: Any, samples: list[float],
            stop: str | None) -> None:  # fmt: skip
    """One solution's latency, speedup, SOL and timing note from its recorded batches."""
    result = side.result
    # A latency is the median of batch means, not of single calls: a solution that does every call's work in a
    # batch's last call (which the wall clock and the tail cannot tell from honest work) is timed at its mean.
    latency = _latency(side.means, len(samples))
    result.latency_ms = latency
    if reference is not None:
        result.reference_ms = reference
        result.speedup = reference.median / latency.median
    result.sol_ms, result.sol_binding, result.sol_by_resource_ms = bound.ms, bound.binding, bound.times_ms
    if sheet is not None:
        result.sol_datasheet_ms, result.sol_datasheet_binding = sheet.ms, sheet.binding
    # only the bounds no kernel can beat (bytes, tensor-core FLOPs) can reject a timing: the CUDA-core, SFU and
    # dependency floors rest on counting conventions a kernel may undercut (an exp on the FMA units)
    implausible = check_plausible(latency.median, bound.hard_ms)
    if implausible:
        raise Rejected("timing-implausible", implausible)
    result.sol_fraction = result.sol_ms / latency.median if result.sol_ms else None
    notes = [f"{rounds.n_sets} fresh input sets a round, {rounds.count} rounds, every batch checked against the wall "
             "clock"]  # fmt: skip
    if len(rounds.sides) > 1:
        notes.append(f"timed in alternation with {len(rounds.sides) - 1} other solution(s) of the same eval")
    gap, wall, waited, host = side.worst
    worst = f"worst batch: {gap:.3f} of {wall:.3f} ms of wall time outside samples and flushes"
    if waited:
        worst += f", {waited:.3f} ms of it the device's wait while the calls were issued"
    if host:
        worst += " (the worker's own account, ms: " + ", ".join(f"{k} {v:.3f}" for k, v in host.items()) + ")"
    notes.append(worst)
    if side.retried:
        notes.append(f"{side.retried} batches timed again after the wall clock or the tail disagreed (the device's "
                     "wait measured again before each)")  # fmt: skip
    notes += [stop] if stop else []
    result.timing_note = "; ".join(notes)


@dataclass
class _Side:
    """One solution of the eval in the timing rounds: its worker's check, its result and its batches."""

    check: WorkloadCheck
    result: WorkloadResult
    round_trip_ms: float
    issue_ms: float | None = None  # the worker's account of its last batch's issue time (sizes the next wait)
    host_ms: dict[str, float] = field(default_factory=dict)  # the worker's account of its last batch's host time
    means: list[float] = field(default_factory=list)  # one per recorded batch
    retried: int = 0  # batches timed again after a check of the wall clock or the tail failed
    active: bool = True  # False once rejected: the others are timed on without it
    gone: bool = False  # its worker died or timed out (timed beside others): the eval starts it a new one
    # the worst batch: (wall ms its samples and flushes leave unexplained, wall ms, ms of the device's wait, the
    # worker's account of its host time)
    worst: tuple[float, float, float, dict[str, float]] = (0.0, 1.0, 0.0, {})


class _Rounds:
    """A round: every input set made anew from a new seed (here and in each worker), the reference timed on them
    (its outputs are the expected ones), then one batch of each solution over the same sets, each verified."""

    def __init__(self, checks: list[WorkloadCheck], results: list[WorkloadResult], w: WorkloadSpec, n_sets: int,
                 flush: Any, flush_ms: float, round_trips: list[float], wait_rate: float | None = None,
                 with_reference: bool = True) -> None:  # fmt: skip
        self.with_reference = with_reference
        self.lead, self.w, self.n_sets, self.flush, self.flush_ms = checks[0], w, n_sets, flush, flush_ms
        self.sides = [_Side(check, result, rtt) for check, result, rtt in zip(checks, results, round_trips)]
        # Clock cycles a millisecond of the device's wait before a batch (None: no wait, the calls are timed as
        # the host issues them). Calibrated here, so that the wait the wall clock allows for is the checker's figure;
        # again before a batch is retried, since the clocks may have moved since (a spin of N cycles lasts longer
        # at a lower clock, which the wall clock then reads as work outside the events).
        self.wait_rate = wait_rate
        self.reference_issue_ms: float | None = None
        self.keys = [f"time{j}" for j in range(n_sets)]
        self.sets: list[tuple[Any, ...]] = []
        self.expected: list[Any] = []
        self.count = 0
        self.reference_means: list[float] = []  # one per recorded batch
        self.recording = False
        self.last_index = -1  # the last function sampled: a lower or equal index starts a new round

    def active(self, i: int) -> bool:
        """Function i of sample_in_rounds still sampled: the reference (function 0 when timed) always is."""
        if self.with_reference:
            return i == 0 or self.sides[i - 1].active
        return self.sides[i].active

    def reject(self, k: int, exc: Rejected) -> None:
        """Solution k is rejected on this workload: raised with a single solution, else recorded and dropped."""
        if len(self.sides) == 1:
            raise exc
        self.sides[k].active = False
        reject(self.sides[k].result, exc)

    def _for_side(self, k: int, action: Callable[[_Side], Any]) -> None:
        """action(side k), a rejection or a lost worker made that side's verdict (raised with a single side)."""
        try:
            action(self.sides[k])
        except Rejected as exc:
            self.reject(k, exc)
        except WorkerGone as gone:
            if len(self.sides) == 1:
                raise
            self.sides[k].gone = True
            self.reject(k, Rejected("error", gone.reason))

    def refresh(self) -> None:
        self.sets, self.expected = [], []
        seeds = [derive_seed(self.lead.spec.seed, self.w.name, "time", self.count * self.n_sets + j)
                 for j in range(self.n_sets)]  # fmt: skip

        def make(side: _Side) -> None:
            for key, seed in zip(self.keys, seeds):
                side.check.ask({"op": "inputs", "key": key, "params": self.w.params, "seed": seed})

        for k, side in enumerate(self.sides):
            if side.active:
                self._for_side(k, make)
        self.sets = [tuple(self.lead.code.make_inputs(dict(self.w.params), seed, self.lead.device)) for seed in seeds]
        self.count += 1

    def _wait(self, issue_ms: float | None, size: int) -> tuple[float, int]:
        """The device's wait before a batch of `size` calls: (ms, clock cycles), sized from the host's last batch."""
        if self.wait_rate is None:
            return 0.0, 0
        ms = ahead_ms(issue_ms, size)
        return ms, int(ms * self.wait_rate)

    def reference_batch(self, size: int) -> list[float]:
        pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(size)]
        self.expected = []

        def issue() -> None:
            for args, (start, end) in zip(self.sets[:size], pairs):
                self.flush.zero_()
                start.record()
                self.expected.append(self.lead.code.reference(*args))
                end.record()

        self.reference_issue_ms = issued_ahead(self._wait(self.reference_issue_ms, size)[1], issue)
        torch.cuda.synchronize()
        samples = [s.elapsed_time(e) for s, e in pairs]
        if self.recording:
            self.reference_means.append(statistics.fmean(samples))
        return samples

    def solution_batch(self, side: _Side, size: int) -> list[float]:
        keys = self.keys[:size]
        for attempt in range(1, BATCH_ATTEMPTS + 1):
            samples, wall_ms, waited, problem = self._timed_batch(side, keys)
            if problem is None:
                break
            if attempt == BATCH_ATTEMPTS:
                raise Rejected("timing-unverified", f"{problem} ({BATCH_ATTEMPTS} batches in a row)")
            # The host of a busy machine (other evals' correctness, a compile) can stall one batch; a latency that
            # hides work fails every batch. Fresh inputs for the next try, so that it cannot be a cache's hit, and the
            # device's wait measured again, in case the clocks fell since it was (a GPU left idle between small
            # batches drops its clock, and a spin of the same cycles then outlasts the wait allowed for).
            side.retried += 1
            if self.wait_rate is not None:
                self.wait_rate = device_wait_rate(self.lead.device)
            self._fresh_untimed(size)
        unaccounted = wall_ms - sum(samples) - size * self.flush_ms
        batch = (unaccounted, wall_ms, waited, side.host_ms)
        side.worst = max(side.worst, batch, key=lambda worst: worst[0] / worst[1])
        j = _VERIFY.randrange(size)
        _, got = side.check.ask({"op": "fetch", "key": keys[j], "what": "outputs"}, side.check.device)
        cmp = side.check.compare(got, self._expected(j))
        if not cmp.ok:
            raise Rejected(cmp.failure or "mismatch", f"output produced while timing (round {self.count}) is wrong: "
                           f"{cmp.message}")  # fmt: skip
        if self.recording:
            side.means.append(statistics.fmean(samples))
        return samples

    def _timed_batch(self, side: _Side, keys: list[str]) -> tuple[list[float], float, float, str | None]:
        """One timed batch in the worker: (samples, the checker's wall ms around it, ms of the device's wait before
        it, why it cannot be trusted)."""
        waited, cycles = self._wait(side.issue_ms, len(keys))
        # This process's own GPU work (the inputs and expected outputs just made, launched asynchronously) done first:
        # left queued, it runs beside the worker's batch, inside the wall clock and outside its events, and an honest
        # kernel is rejected as hiding work (seen on the H200 for ladder rungs timed without the reference)
        torch.cuda.synchronize(self.lead.device)
        with collector_paused():
            started = time.perf_counter()
            reply, _ = side.check.ask({"op": "time", "keys": keys, "ahead_cycles": cycles})
            wall_ms = (time.perf_counter() - started) * 1e3
        samples = reply.get("samples_ms")
        if not isinstance(samples, list) or len(samples) != len(keys) or not all(type(s) is float for s in samples):
            raise Rejected("timing-unverified", f"the worker answered a timed batch with {str(samples)[:80]}")
        # The worker's account of its host time sizes the next wait and goes into the notes; nothing relies on it (a
        # longer wait is allowed for only up to AHEAD_CAP_MS, by the checker's own calibration).
        side.host_ms = _host_account(reply.get("host_ms"))
        issue = side.host_ms.get("enter", 0.0) + side.host_ms.get("issue", 0.0)
        side.issue_ms = issue if side.host_ms else None
        problem = check_batch(wall_ms, samples, self.flush_ms, side.round_trip_ms, waited) or check_tail(
            reply.get("tail_ms"), samples
        )
        return samples, wall_ms, waited, problem

    def _new_round(self, i: int) -> bool:
        started = i <= self.last_index
        self.last_index = i
        return started or self.count == 0

    def take_batch(self, i: int, first: int, size: int) -> list[float]:
        """Function i: the reference (0, which starts each round with fresh inputs), then the solutions."""
        self.last_index = i
        if i == 0:
            self.refresh()
            return self.reference_batch(size)
        return self._side_batch(i - 1, size)

    def solution_only(self, i: int, first: int, size: int) -> list[float]:
        """Function i: solution i, the reference untimed; the first solution sampled in a round makes its inputs."""
        if self._new_round(i):
            self._fresh_untimed(size)
        return self._side_batch(i, size)

    def _side_batch(self, k: int, size: int) -> list[float]:
        got: list[float] = []
        self._for_side(k, lambda side: got.extend(self.solution_batch(side, size)))
        return got

    def _fresh_untimed(self, size: int) -> None:
        """New input sets, and the reference's outputs on them without timing it."""
        self.refresh()
        if not self.lead.spec.expected_float64:  # else made for the one call compared (_expected)
            self.expected = [self.lead.expected_outputs(args) for args in self.sets[:size]]

    def _expected(self, j: int) -> Any:
        """What the outputs of the batch's call `j` must match: the timed reference's outputs on the same inputs, or
        (`[expected] float64`) the float64 reference's, made now for this one call."""
        if self.lead.spec.expected_float64:
            return self.lead.expected_outputs(self.sets[j])
        return self.expected[j]

    def settle(self, seconds: float, reference: bool) -> None:
        """Rounds not recorded, until the clocks have climbed under this load (at least one round: the first timed
        calls of new input sets may still compile or autotune)."""
        until = time.perf_counter() + seconds
        functions = len(self.sides) + (1 if reference else 0)
        while True:
            for i in range(functions):
                if self.active(i):
                    (self.take_batch if reference else self.solution_only)(i, 0, self.n_sets)
            if time.perf_counter() >= until:
                self.recording = True
                return


def _flush_ms(flush: torch.Tensor) -> float:
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        flush.zero_()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times[1:])


def _host_account(reply: Any) -> dict[str, float]:
    """The worker's figures of its host time (ms for each of its steps), or nothing if they are not that: the note
    they go into holds no text of the worker's."""
    if not isinstance(reply, dict) or set(reply) != set(HOST_STEPS):
        return {}
    if not all(type(v) is float and math.isfinite(v) and v >= 0 for v in reply.values()):
        return {}
    return {step: reply[step] for step in HOST_STEPS}


def _latency(batch_means: list[float], calls: int) -> Latency:
    """Median and mean of the batches' means; n counts the timed calls behind them."""
    return Latency(statistics.median(batch_means), statistics.fmean(batch_means), standard_error(batch_means), calls)


def reference_in_float64(reference: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """The reference run on float64 copies of the floating-point input tensors, its floating-point outputs rounded to
    the inputs' widest float dtype (a dtype-generic reference returns that dtype): the correctly rounded answer,
    free of the reference's own accumulated rounding."""
    floats = [a.dtype for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()]
    if not floats:
        return reference(*args)
    dtype = floats[0]
    for other in floats[1:]:
        dtype = torch.promote_types(dtype, other)
    wide = tuple(a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)
    out = reference(*wide)
    if isinstance(out, (tuple, list)):
        return tuple(o.to(dtype) if isinstance(o, torch.Tensor) and o.is_floating_point() else o for o in out)
    return out.to(dtype) if isinstance(out, torch.Tensor) and out.is_floating_point() else out


def error_of(reply: dict[str, Any]) -> tuple[str, str]:
    """The (failure kind, message) of a worker's refusal, however malformed the reply."""
    error = reply.get("error")
    if isinstance(error, list) and len(error) == 2 and all(isinstance(e, str) for e in error):
        return error[0], error[1][:3000]
    if isinstance(error, str):
        return "error", error[:3000]
    return "error", f"the worker answered {str(reply)[:200]}"
