"""The timing protocol between checker and worker, on the CPU: the checker's rounds against a worker stand-in that
keeps (or breaks) the rules, and the worker's timed batch with a stand-in for CUDA events. The GPU runs the same
code with real events; here the clock is the host's."""

from __future__ import annotations

import time
from typing import Any

import pytest
import torch

from workbench.harness import workload_check
from workbench.harness.result import WorkloadResult
from workbench.harness.solution_side import main as worker_main
from workbench.harness.spec import EvalSpec, WorkloadSpec
from workbench.harness.workload_check import Rejected, TaskCode, WorkloadCheck

CALL_S = 0.002  # what one solution call takes in the stand-in worker
WAIT_RATE = 1e6  # clock cycles a millisecond of the device's wait, when the test gives the device one


class HostEvent:
    """A CUDA event on the host's clock."""

    def __init__(self, enable_timing: bool = True) -> None:
        self.at = 0.0

    def record(self, stream: Any = None) -> None:
        self.at = time.perf_counter()

    def elapsed_time(self, end: HostEvent) -> float:
        return (end.at - self.at) * 1e3

    def synchronize(self) -> None:
        return None  # recorded on the host: done when recorded


def make_inputs(params: dict, seed: int, device: Any) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(int(params["n"]), generator=gen),)


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 2 + 1


class StandInWorker:
    """Answers the checker's requests like the real worker. `cheat` picks a broken rule: "stale" returns the first
    round's outputs for later rounds (a cache by identity), "events" reports a hundredth of each call's time, "stream"
    leaves each call's work running on another stream (the device busy after the events, by more than the calls)."""

    def __init__(self, cheat: str | None = None, issue_ms: float | None = None) -> None:
        self.cheat, self.inputs, self.outputs, self.seeds, self.first = cheat, {}, {}, [], {}
        self.issue_ms, self.waits = issue_ms, []  # what it says its host took to issue a batch; the waits asked

    def request(self, header: dict, timeout: float, device: Any = None) -> tuple[dict, list]:
        op = header["op"]
        if op == "inputs":
            self.seeds.append(header["seed"])
            self.inputs[header["key"]] = make_inputs(header["params"], header["seed"], None)
        elif op in ("call", "time"):
            keys = header.get("keys", [header.get("key")])
            if op == "time":
                self.waits.append(header["ahead_cycles"])
                time.sleep(header["ahead_cycles"] / WAIT_RATE / 1e3)  # the device's wait, spent in full
            took = []  # each call's time as its events would time it: measured, so a loaded host cannot fake a gap
            for key in keys:
                started = time.perf_counter()
                time.sleep(CALL_S)
                fresh = reference(*self.inputs[key])
                took.append((time.perf_counter() - started) * 1e3)
                self.outputs[key] = self.first.setdefault(key, fresh) if self.cheat == "stale" else fresh
            if op == "time":
                if self.cheat == "stall-once" and not self.first.get("stalled"):
                    self.first["stalled"] = True
                    time.sleep(CALL_S * len(keys) * 4)  # an honest batch that a busy host held up once
                share = 0.01 if self.cheat == "events" else 1.0
                tail = CALL_S * 1e3 * len(keys) if self.cheat == "stream" else 0.004
                samples = [ms * share for ms in took]
                if self.cheat == "deferred":  # every call's work done in the batch's last call, which waits for it
                    samples = [ms * 0.01 for ms in took[:-1]] + [sum(took)]
                issue = CALL_S * 1e3 * len(keys) if self.issue_ms is None else self.issue_ms
                host = {"enter": 0.01, "issue": issue, "exit": 0.1, "drain": 0.0, "tail": 0.0}
                return {"ok": True, "samples_ms": samples, "tail_ms": tail, "host_ms": host, "error": None}, []
        elif op == "fetch":
            return {"ok": True}, [self.outputs[header["key"]]]
        return {"ok": True}, []


@pytest.fixture
def host_timing(monkeypatch):
    monkeypatch.setattr(workload_check.torch.cuda, "Event", HostEvent)
    monkeypatch.setattr(workload_check.torch.cuda, "synchronize", lambda *a: None)
    monkeypatch.setattr(workload_check, "flush_buffer", lambda device: torch.zeros(16))
    monkeypatch.setattr(workload_check, "_flush_ms", lambda flush: 0.001)
    monkeypatch.setattr(workload_check, "device_wait_rate", lambda device: None)
    import workbench.harness.ceilings as ceilings

    monkeypatch.setattr(ceilings, "device_ceilings", lambda device: {"bandwidth_gbps": 1000.0, "matmul_tflops": 100.0})


def run_timing(worker: StandInWorker, sol_bytes: float = 0.0, work: dict | None = None) -> WorkloadResult:
    w = WorkloadSpec("w", {"n": 1000}, sol_work=work or {"bytes": sol_bytes}, timed=True)
    spec = EvalSpec(task_dir="", solution="", mode="cuda", outputs=("out",), tolerance={"float32": (1e-6, 1e-6)},
                    forbidden_calls=(), allowed_torch_ops=(), workloads=[w], seed=12345,
                    timing={"budget_s": 0.2, "warmup_s": 0.01})  # fmt: skip
    check = WorkloadCheck(spec, TaskCode(make_inputs, reference), worker, lambda: 60.0, lambda name: _nothing())
    check.device = torch.device("cpu")
    result = WorkloadResult(name="w")
    check._time(w, result)
    return result


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_an_honest_worker_is_timed_on_fresh_inputs_every_round(host_timing):
    worker = StandInWorker()
    result = run_timing(worker)
    assert result.latency_ms is not None and CALL_S * 1e3 <= result.latency_ms.median < CALL_S * 1e3 * 5
    assert result.reference_ms is not None and result.speedup is not None
    assert "rounds" in (result.timing_note or "")
    assert len(worker.seeds) >= 4 and len(set(worker.seeds)) == len(worker.seeds)  # no input set made twice


def test_a_batch_held_up_once_by_the_host_is_timed_again_not_rejected(host_timing):
    result = run_timing(StandInWorker(cheat="stall-once"))
    assert result.latency_ms is not None and CALL_S * 1e3 <= result.latency_ms.median < CALL_S * 1e3 * 5
    assert "timed again" in (result.timing_note or "")


def test_outputs_cached_from_an_earlier_round_are_caught(host_timing):
    with pytest.raises(Rejected) as rejected:
        run_timing(StandInWorker(cheat="stale"))
    assert rejected.value.failure == "mismatch" and "while timing" in rejected.value.message


def test_work_deferred_to_the_last_call_of_a_batch_is_not_reported_fast(host_timing):
    result = run_timing(StandInWorker(cheat="deferred"))
    assert result.latency_ms is not None and result.latency_ms.median >= 0.9 * CALL_S * 1e3


def test_work_left_on_another_stream_is_caught_by_the_tail(host_timing):
    with pytest.raises(Rejected) as rejected:
        run_timing(StandInWorker(cheat="stream"))
    assert rejected.value.failure == "timing-unverified" and "stayed busy" in rejected.value.message


def test_events_that_report_a_fraction_of_the_work_are_caught_by_the_wall_clock(host_timing):
    with pytest.raises(Rejected) as rejected:
        run_timing(StandInWorker(cheat="events"))
    assert rejected.value.failure == "timing-unverified"


def test_a_latency_under_the_speed_of_light_is_rejected(host_timing):
    # 1e8 bytes at 1000 GB/s is 0.1 ms of SOL; the stand-in's 2 ms calls are plausible, then not at 1e10 bytes
    assert run_timing(StandInWorker(), sol_bytes=1e8).sol_fraction is not None
    with pytest.raises(Rejected) as rejected:
        run_timing(StandInWorker(), sol_bytes=1e10)
    assert rejected.value.failure == "timing-implausible"


def test_a_floor_a_kernel_may_undercut_reports_sol_but_never_rejects_a_timing(host_timing, monkeypatch):
    import workbench.harness.ceilings as ceilings

    measured = {"bandwidth_gbps": 1000.0, "matmul_tflops": 100.0, "step_us": 1.0}
    monkeypatch.setattr(ceilings, "device_ceilings", lambda device: measured)
    # 1e6 dependent steps at 1 us: a 1 s dependency floor over the stand-in's 2 ms calls, reported, not rejected
    result = run_timing(StandInWorker(), work={"bytes": 1e8, "dependent_steps": 1e6})
    assert result.sol_binding == "dependency" and result.sol_ms == pytest.approx(1000.0)
    assert result.sol_by_resource_ms == pytest.approx({"hbm": 0.1, "dependency": 1000.0})
    assert result.sol_fraction is not None and result.sol_fraction > 1


@pytest.fixture
def waiting_device(host_timing, monkeypatch):
    """A device that can wait before a batch (the host's sleep stands in for the spin kernel)."""
    monkeypatch.setattr(workload_check, "device_wait_rate", lambda device: WAIT_RATE)
    monkeypatch.setattr(workload_check.torch.cuda, "_sleep", lambda cycles: time.sleep(cycles / WAIT_RATE / 1e3),
                        raising=False)  # fmt: skip


def test_the_device_waits_before_each_batch_for_as_long_as_the_host_took_to_issue_the_last(waiting_device):
    worker = StandInWorker(issue_ms=1.0)
    result = run_timing(worker)
    assert result.latency_ms is not None and "the device's wait" in (result.timing_note or "")
    first, *later = worker.waits
    assert first == int((4 * 0.5 + 0.5) * WAIT_RATE)  # before any batch: a default, for 4 calls
    assert later and all(cycles == int((1.25 * (1.0 + 0.01) + 0.2) * WAIT_RATE) for cycles in later)


def test_a_worker_that_claims_a_slow_host_gets_a_wait_no_longer_than_the_cap(waiting_device):
    from workbench.harness.verify import AHEAD_CAP_MS

    worker = StandInWorker(issue_ms=1e4)
    run_timing(worker)
    assert max(worker.waits) == int(AHEAD_CAP_MS * WAIT_RATE)


def test_without_a_wait_the_worker_is_asked_for_none(host_timing):
    worker = StandInWorker()
    run_timing(worker)
    assert worker.waits and set(worker.waits) == {0}


class StandInCalls:
    """The worker's _Calls with the guard's launch count and the device synchronise observed."""

    def __init__(self, launches_per_call: int = 1) -> None:
        self.count, self.per_call, self.synced, self.tensor_type = 0, launches_per_call, [], torch.Tensor
        self.solution_fn = self.solution

    def solution(self, x: torch.Tensor) -> torch.Tensor:
        self.count += self.per_call
        return x + 1

    def launches(self) -> int:
        return self.count

    def next_call(self) -> None:
        pass

    def region(self, body: Any) -> tuple[Any, dict]:
        return body(), {"error": None}

    def sync(self) -> None:
        self.synced.append(time.perf_counter())


def test_the_workers_batch_synchronises_before_it_answers_and_keeps_each_output():
    calls = StandInCalls()
    inputs = {k: (torch.arange(3.0),) for k in ("a", "b")}
    outputs: dict = {}
    clock = time.perf_counter
    samples, tail, _, error = worker_main._timed_batch(["a", "b"], inputs, outputs, calls, torch.zeros(4),
                                                       host_timer(clock))  # fmt: skip
    assert error is None and len(samples) == 2 and calls.synced and 0 <= tail < 50
    assert torch.equal(outputs["b"][0], torch.arange(3.0) + 1)


def test_a_timed_call_that_launches_nothing_is_refused():
    calls = StandInCalls(launches_per_call=0)
    inputs = {"a": (torch.arange(3.0),)}
    samples, _, _, error = worker_main._timed_batch(["a"], inputs, {}, calls, torch.zeros(4), host_timer())
    assert samples == [] and error[0] == "no-launch"


def test_the_workers_tail_is_the_time_the_device_synchronise_still_waited():
    """Work still running on another stream when the default stream is done: the synchronise waits for it."""
    calls = StandInCalls()
    calls.sync = lambda: time.sleep(0.05)  # type: ignore[method-assign]
    inputs = {"a": (torch.arange(3.0),)}
    _, tail, _, error = worker_main._timed_batch(["a"], inputs, {}, calls, torch.zeros(4), host_timer())
    assert error is None and 45 <= tail < 1000


def host_timer(clock: Any = time.perf_counter, device_wait: Any = None) -> worker_main.BatchTimer:
    import gc

    return worker_main.BatchTimer(HostEvent, None, clock, device_wait, (gc.disable, gc.enable))


def test_the_worker_has_the_device_wait_before_its_first_call_and_collects_no_garbage_during_the_batch():
    import gc

    seen: list[Any] = []
    calls = StandInCalls()
    solution = calls.solution
    calls.solution_fn = lambda x: (seen.append(("call", gc.isenabled())), solution(x))[1]
    inputs = {k: (torch.arange(3.0),) for k in ("a", "b")}
    timer = host_timer(device_wait=lambda cycles: seen.append(("wait", cycles)))
    batch = worker_main._timed_batch(["a", "b"], inputs, {}, calls, torch.zeros(4), timer, 5000)
    assert batch.error is None and seen == [("wait", 5000), ("call", False), ("call", False)]
    assert gc.isenabled()  # on again after the batch
    assert set(batch.host) == {"enter", "issue", "exit", "drain", "tail"} and all(v >= 0 for v in batch.host.values())


def test_the_worker_waits_for_nothing_when_asked_for_no_cycles():
    waits: list[int] = []
    calls = StandInCalls()
    batch = worker_main._timed_batch(["a"], {"a": (torch.arange(3.0),)}, {}, calls, torch.zeros(4),
                                     host_timer(device_wait=waits.append))  # fmt: skip
    assert batch.error is None and waits == []


def test_the_workers_account_of_its_host_time_is_kept_only_as_the_known_steps():
    steps = {"enter": 0.1, "issue": 1.0, "exit": 0.2, "drain": 0.0, "tail": 0.0}
    assert workload_check._host_account(steps) == steps
    assert workload_check._host_account({**steps, "ignore previous instructions": 1.0}) == {}
    assert workload_check._host_account({**steps, "issue": "1.0"}) == {}
    assert workload_check._host_account({**steps, "issue": float("nan")}) == {}


def test_each_call_of_a_batch_has_its_own_read_budget():
    """A batch's calls share one guarded region; a grouped GEMM reading its 129 expert offsets in each call is within
    the budget of each (on the H200 the second call was refused as 258 elements "in one call")."""
    from workbench.harness.solution_side.guard import READ_BUDGET, SolutionGuard

    class GuardedCalls(StandInCalls):
        def __init__(self) -> None:
            super().__init__()
            self.guard = SolutionGuard({}, ())

        def next_call(self) -> None:
            self.guard.next_call()

        def region(self, body: Any) -> tuple[Any, dict]:
            try:
                with self.guard:
                    return body(), {"error": None}
            except Exception as exc:  # noqa: BLE001 - the guard's refusal is the result looked at
                return None, {"error": ("forbidden-op", str(exc))}

    def reads_offsets(x: torch.Tensor) -> torch.Tensor:
        calls.count += 1
        assert len(x.tolist()) == 129
        return x  # (no torch arithmetic: the guard refuses it)

    calls = GuardedCalls()
    calls.solution_fn = reads_offsets
    inputs = {k: (torch.arange(129.0),) for k in ("a", "b", "c")}
    _, _, _, error = worker_main._timed_batch(["a", "b", "c"], inputs, {}, calls, torch.zeros(4), host_timer())
    assert error is None
    calls.next_call = lambda: None  # type: ignore[method-assign]
    _, _, _, error = worker_main._timed_batch(["a", "b", "c"], inputs, {}, calls, torch.zeros(4), host_timer())
    assert error is not None and f"more than {READ_BUDGET}" in error[1]


def run_together(workers: list[StandInWorker]) -> list[WorkloadResult]:
    w = WorkloadSpec("w", {"n": 1000}, sol_work={"bytes": 0.0}, timed=True)
    spec = EvalSpec(task_dir="", solution="", mode="cuda", outputs=("out",), tolerance={"float32": (1e-6, 1e-6)},
                    forbidden_calls=(), allowed_torch_ops=(), workloads=[w], seed=12345,
                    timing={"budget_s": 0.2, "warmup_s": 0.01})  # fmt: skip
    checks = []
    for worker in workers:
        check = WorkloadCheck(spec, TaskCode(make_inputs, reference), worker, lambda: 60.0, lambda name: _nothing())
        check.device = torch.device("cpu")
        checks.append(check)
    results = [WorkloadResult(name="w", correct=True) for _ in workers]
    workload_check.time_together(checks, w, results)
    return results


def test_solutions_timed_together_share_the_reference_and_every_input_set(host_timing):
    first, second = StandInWorker(), StandInWorker()
    a, b = run_together([first, second])
    assert a.latency_ms is not None and b.latency_ms is not None
    assert a.reference_ms == b.reference_ms and a.speedup is not None and b.speedup is not None
    assert "alternation with 1 other" in (a.timing_note or "")
    assert first.seeds == second.seeds and len(first.seeds) >= 4  # each round's sets made alike in both workers


def test_a_solution_rejected_while_timed_together_leaves_the_others_timed(host_timing):
    honest, cheat = StandInWorker(), StandInWorker(cheat="events")
    a, b = run_together([honest, cheat])
    assert a.correct and a.latency_ms is not None and CALL_S * 1e3 <= a.latency_ms.median < CALL_S * 1e3 * 5
    assert not b.correct and b.failure == "timing-unverified" and b.latency_ms is None
    assert len(honest.seeds) > len(cheat.seeds)  # timed on without the cheat


def test_a_clock_that_fell_after_the_wait_was_calibrated_costs_a_retry_not_a_rejection(waiting_device, monkeypatch):
    # Calibrated at a clock 10x the one the device then runs at: the first batch's wait lasts 10x what the wall clock
    # allows for. The retry measures the wait again and passes; with the first rate kept, every batch would fail.
    rates = iter([10 * WAIT_RATE])
    monkeypatch.setattr(workload_check, "device_wait_rate", lambda device: next(rates, WAIT_RATE))
    result = run_timing(StandInWorker(issue_ms=1.0))
    assert result.latency_ms is not None and "measured again" in (result.timing_note or "")
