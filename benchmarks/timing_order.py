"""Does the order of timing change a speedup? The harness's timing of a reference and an expert three ways, on
the same inputs and in one process: the reference fully, then the expert (how the harness timed until
2026-11-30); the expert, then the reference; and both in alternating batches after a 0.2 s settle (how it times
now). Before that, from a cold GPU: after some seconds idle, the first timing of an expert, without and with
the settle; and with --trace, the first case's expert from its first call on, in 0.25 s windows. Prints a table
with the SM clock and power that `nvidia-smi` logged during each timing.

    python benchmarks/timing_order.py [--case TASK/WORKLOAD[:NAME=VALUE,...] ...] [--budget S] [--idle S]
        [--trace S] [--clocks FILE]

A case may override workload parameters (moe_grouped_gemm/mixtral-8x7b-prefill:T=4096 is the same model with
2048 tokens). Why it exists: on the H200 two sequential harness runs read Mixtral's reference at 2882 and 3096 us
and the expert at 3186-3197 us while the kernels ran at the power limit (SM clock 1455-1800 MHz at ~690 W), and
layernorm_backward's expert read 173 us as the first eval after the machine started against 134 us later.

First H200 runs (2026-11-30, docs/runs/2026-11-30-h200-morning/timing-order*.txt): timed one after the other,
Mixtral's speedup read 0.994-1.025 and the chunk's 1.017-1.220, depending on the order and on whether the chip had
reached its power limit yet (10-20 samples of a 3 ms kernel are ~50 ms: a snapshot of the clock); alternating,
1.050-1.056 and 1.135-1.181. From cold, layernorm_backward's first timing without the settle read 140.5 and
196.6 us in two calls, every other one 134.1-134.4 us. cross_entropy/gemma-decode-16 (a ~12 us expert of two
launches) read 54-103 us for its first ~3 s of calls in a process and 12.2-12.4 us after, in every order:
a transient the 0.2 s settle does not cover (--trace was added to look at it and has not run on a GPU yet).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from design_sweep import load  # noqa: E402

from workbench.formulas import evaluate_formula  # noqa: E402
from workbench.harness.spec import derive_seed  # noqa: E402
from workbench.harness.timing import Timed, TimingOptions, flush_buffer, time_functions  # noqa: E402

DEFAULT_CASES = [
    "moe_grouped_gemm/mixtral-8x7b-prefill",
    "moe_grouped_gemm/mixtral-8x7b-prefill:T=4096",
    "moe_grouped_gemm/deepseek-v3-ep8",
    "layernorm_backward/opt-1.3b-train",
]
COLD_CASE = "layernorm_backward/opt-1.3b-train"


def parse_case(text: str) -> tuple[str, str, dict[str, Any]]:
    name, _, overrides = text.partition(":")
    task, _, workload = name.partition("/")
    params: dict[str, Any] = {}
    for item in filter(None, overrides.split(",")):
        key, _, value = item.partition("=")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    return task, workload, params


class Case:
    def __init__(self, text: str) -> None:
        import torch

        self.text = text
        task_name, workload_name, overrides = parse_case(text)
        files = load(task_name)
        [workload] = [w for w in files.task.workloads if w.name == workload_name]
        self.params = {**workload.params, **overrides}
        self.reference, self.expert = files.reference, files.expert.solution
        device = torch.device("cuda")
        self.sets = [
            tuple(
                files.inputs.make_inputs(
                    dict(self.params), derive_seed(workload.seed, workload.name, "time", j), device
                )
            )
            for j in (0, 1)
        ]
        self.flops = evaluate_formula(files.task.sol_flops, self.params)
        self.flush = flush_buffer(device)

    def time(self, fns: list[Callable[..., Any]], options: TimingOptions) -> list[Timed]:
        return time_functions(fns, self.sets, self.flush, options)


class Log:
    """Rows of (case, mode, reference us, expert us, start, end) and, afterwards, the clocks logged between."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, case: Case, mode: str, ref: Timed | None, sol: Timed, started: float) -> None:
        row = {
            "case": case.text,
            "mode": mode,
            "ref": ref.latency.median * 1e3 if ref else None,
            "sol": sol.latency.median * 1e3,
            "n": f"{ref.latency.n if ref else '-'}/{sol.latency.n}",
            "window": (started, time.time()),
        }
        self.rows.append(row)
        speed = f", reference {row['ref']:.1f} us, speedup {row['ref'] / row['sol']:.3f}" if ref else ""
        print(f"{case.text} {mode}: expert {row['sol']:.1f} us{speed} (n {row['n']})", flush=True)


def order_runs(case: Case, log: Log, budget: float) -> None:
    sequential = TimingOptions(budget_s=budget, warmup_s=0.0)
    for repeat in range(2):
        started = time.time()
        [ref], [sol] = case.time([case.reference], sequential), case.time([case.expert], sequential)
        log.add(case, f"reference then expert #{repeat + 1}", ref, sol, started)
        started = time.time()
        [sol], [ref] = case.time([case.expert], sequential), case.time([case.reference], sequential)
        log.add(case, f"expert then reference #{repeat + 1}", ref, sol, started)
        started = time.time()
        ref, sol = case.time([case.reference, case.expert], TimingOptions(budget_s=budget))
        log.add(case, f"alternating #{repeat + 1}", ref, sol, started)


def cold_runs(case: Case, log: Log, budget: float, idle: float) -> None:
    for repeat in range(3):
        for settle in (0.0, 0.2):
            time.sleep(idle)
            started = time.time()
            [sol] = case.time([case.expert], TimingOptions(budget_s=budget, warmup_s=settle))
            log.add(case, f"cold, expert alone, settle {settle} s #{repeat + 1}", None, sol, started)


def trace(case: Case, seconds: float) -> None:
    """The expert alone, called back to back from its first call on: the median of each 0.25 s window (L2
    flushed, CUDA events), to see how long a transient lasts."""
    import statistics

    import torch

    started = time.time()
    while time.time() - started < seconds:
        window, times = time.time(), []
        while time.time() - window < 0.25:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            case.flush.zero_()
            start.record()
            case.expert(*case.sets[len(times) % len(case.sets)])
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        print(f"trace {case.text} at {window - started:5.2f} s: median {statistics.median(times):8.1f} us "
              f"over {len(times)} calls", flush=True)  # fmt: skip


def read_clocks(path: Path) -> list[tuple[float, float, float]]:
    """(unix time, SM MHz, W) per nvidia-smi line; its timestamps are the machine's local time (UTC here)."""
    rows = []
    with path.open() as f:
        for line in csv.reader(f, skipinitialspace=True):
            try:
                stamp = dt.datetime.strptime(line[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=dt.UTC)
                rows.append((stamp.timestamp(), float(line[1].split()[0]), float(line[2].split()[0])))
            except (ValueError, IndexError):
                continue
    return rows


def print_tables(log: Log, cases: dict[str, Case], clocks: list[tuple[float, float, float]]) -> None:
    print("\n| case | mode | reference us | expert us | speedup | expert TFLOP/s | samples ref/expert | SM MHz | W |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in log.rows:
        inside = [(mhz, w) for t, mhz, w in clocks if row["window"][0] <= t <= row["window"][1]]
        mhz = f"{min(m for m, _ in inside):.0f}-{max(m for m, _ in inside):.0f}" if inside else "-"
        watts = f"{max(w for _, w in inside):.0f}" if inside else "-"
        flops = cases[row["case"]].flops
        rate = f"{flops / row['sol'] / 1e6:.0f}" if flops else "-"
        ref = f"{row['ref']:.1f}" if row["ref"] else "-"
        speed = f"{row['ref'] / row['sol']:.3f}" if row["ref"] else "-"
        cells = [row["case"], row["mode"], ref, f"{row['sol']:.1f}", speed, rate, row["n"], mhz, watts]
        print("| " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", nargs="+", default=DEFAULT_CASES)
    parser.add_argument("--budget", type=float, default=1.0, help="timing seconds per function")
    parser.add_argument("--idle", type=float, default=8.0, help="seconds idle before each cold timing")
    parser.add_argument("--trace", type=float, default=0.0, help="first: trace the first case's expert this long")
    parser.add_argument("--clocks", type=Path, help="log nvidia-smi's SM clock and power here every 100 ms")
    args = parser.parse_args()

    logger = None
    if args.clocks:
        query = "--query-gpu=timestamp,clocks.sm,power.draw,pstate,clocks.mem,utilization.gpu"
        logger = subprocess.Popen(["nvidia-smi", query, "--format=csv", "-lms", "100"], stdout=args.clocks.open("w"))
    log = Log()
    cases: dict[str, Case] = {}
    try:
        if args.trace:
            cases[args.case[0]] = Case(args.case[0])
            trace(cases[args.case[0]], args.trace)
        cases[COLD_CASE] = Case(COLD_CASE)
        cold_runs(cases[COLD_CASE], log, args.budget, args.idle)  # first: the GPU has run nothing of ours yet
        for text in args.case:
            case = cases[text] = cases.get(text) or Case(text)
            order_runs(case, log, args.budget)
            case.sets = []  # the MoE weights are 1-2 GB a set
    finally:
        if logger:
            logger.terminate()
    print_tables(log, cases, read_clocks(args.clocks) if args.clocks else [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
