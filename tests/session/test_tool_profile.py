"""The profile tool: ncu's CSV read and summarised per kernel, and its error paths, with no GPU and no ncu here.

NCU_SAMPLE is hand-written in the shape of `ncu --csv --page details` (Nsight Compute 2023+: a row a metric of a
launch, rule findings as rows with an empty metric, values with thousands separators, auto-scaled units), with
numbers of the order an H200 gives for rmsnorm_residual's expert on llama3-8b-prefill; it was not recorded on a
GPU. A fake `ncu` on PATH prints it (or sleeps, or fails) to drive the tool end to end.
"""

import os
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO

from workbench.session.profile_report import (
    kernel_filter,
    parse_details_csv,
    summarise,
    triton_kernel_names,
)
from workbench.session.tool_args import ToolError
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task

HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
    '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type",'
    '"Rule Description","Estimated Speedup Type","Estimated Speedup"'
)
RMSNORM = "_add_rmsnorm_kernel"
TORCH_KERNEL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char *>>"


def _launch(launch_id: str, kernel: str, grid: str, metrics: list[tuple[str, str, str, str]],
            rule: tuple[str, str] | None = None) -> list[str]:  # fmt: skip
    head = f'"{launch_id}","4242","python3.12","127.0.0.1","{kernel}","1","7","(256, 1, 1)","{grid}","0","9.0"'
    rows = [f'{head},"{section}","{name}","{unit}","{value}",' for section, name, unit, value in metrics]
    if rule:
        rows.append(f'{head},"SpeedOfLight","","","","{rule[0]}","OPT","{rule[1]}","",""')
    return rows


SOL, LAUNCH, OCC = "GPU Speed Of Light Throughput", "Launch Statistics", "Occupancy"
CLI = "Command line profiler metrics"  # the section ncu files --metrics under


def _rmsnorm_metrics(duration_us: str) -> list[tuple[str, str, str, str]]:
    return [
        (SOL, "DRAM Frequency", "Ghz", "3.12"),
        (SOL, "SM Frequency", "Ghz", "1.75"),
        (SOL, "Memory Throughput", "%", "86.04"),
        (SOL, "DRAM Throughput", "%", "86.04"),
        (SOL, "Duration", "us", duration_us),
        (SOL, "Compute (SM) Throughput", "%", "23.51"),
        (LAUNCH, "Block Size", "", "256"),
        (LAUNCH, "Grid Size", "", "16,384"),
        (LAUNCH, "Registers Per Thread", "register/thread", "28"),
        (OCC, "Theoretical Occupancy", "%", "100"),
        (OCC, "Achieved Occupancy", "%", "87.12"),
        (CLI, "dram__bytes.sum", "Mbyte", "537.92"),
        (CLI, "dram__bytes.sum.peak_sustained", "byte/cycle", "1,536"),
        (CLI, "dram__cycles_elapsed.avg.per_second", "cycle/nsecond", "3.12"),
        (CLI, "gpu__time_duration.sum", "us", duration_us),
        (CLI, "sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "1.75"),
        (CLI, "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", "0"),
        (CLI, "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "67,108,864"),
        (CLI, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "67,108,864"),
        (CLI, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "inst/cycle", "16,896"),
        (CLI, "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "201,326,592"),
        (CLI, "sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "inst", "0"),
    ]


BOTTLENECK = (
    "The kernel is utilizing greater than 80.0% of the available compute or memory performance of the device. To "
    "further improve performance, work will likely need to be shifted from the most utilized to another unit. "
    "Start by analyzing DRAM in the Memory Workload Analysis section."
)
NCU_SAMPLE = "\n".join([
    "==PROF== Connected to process 4242 (/usr/bin/python3.12)",
    f'==PROF== Profiling "{RMSNORM}" - 0: 0%....50%....100% - 9 passes',
    "==WARNING== Backing up device memory in system memory. Kernel replay might be slow.",
    f'==PROF== Profiling "{RMSNORM}" - 1: 0%....50%....100% - 9 passes',
    "profiled: 3 calls of solution()",
    "==PROF== Disconnected from process 4242",
    HEADER,
    *_launch("0", RMSNORM, "(16384, 1, 1)", _rmsnorm_metrics("142.30"), ("SOLBottleneck", BOTTLENECK)),
    # a launch of input generation, as an ncu without the --kernel-name filter would show: left out by name
    *_launch("1", TORCH_KERNEL, "(65536, 1, 1)", [(SOL, "Duration", "us", "310.50"),
                                                  (SOL, "Memory Throughput", "%", "91.2")]),
    *_launch("2", RMSNORM, "(16384, 1, 1)", _rmsnorm_metrics("139.62"), ("SOLBottleneck", BOTTLENECK)),
]) + "\n"  # fmt: skip


def test_the_csv_is_read_per_launch_in_base_units():
    launches, other = parse_details_csv(NCU_SAMPLE)
    assert [launch.kernel for launch in launches] == [RMSNORM, TORCH_KERNEL, RMSNORM]
    first = launches[0]
    assert first.value("Duration") == pytest.approx(142.30e-6)
    assert first.value("dram__bytes.sum") == pytest.approx(537.92e6)
    assert first.value("dram__cycles_elapsed.avg.per_second") == pytest.approx(3.12e9)
    assert first.value("SM Frequency") == pytest.approx(1.75e9)
    assert first.value("sm__sass_thread_inst_executed_op_fmul_pred_on.sum") == 201_326_592
    assert first.grid == "(16384, 1, 1)" and "Memory Workload Analysis" in first.findings["SOLBottleneck"]
    assert "profiled: 3 calls of solution()" in other and HEADER not in other


def test_the_summary_keeps_the_solutions_kernels_and_says_what_limits_them():
    launches, _ = parse_details_csv(NCU_SAMPLE)
    [summary] = summarise(launches, [RMSNORM])
    assert summary.launches == 2 and summary.seconds == pytest.approx(140.96e-6)
    assert summary.dram_bytes_per_s == pytest.approx(537.92e6 / 140.96e-6, rel=1e-2)  # 3.8 TB/s
    assert summary.dram_peak_bytes_per_s == pytest.approx(1536 * 3.12e9)  # 4.79 TB/s
    flops = 67_108_864 + 201_326_592 + 2 * 67_108_864
    assert summary.flops_per_s == pytest.approx(flops / 140.96e-6, rel=1e-2)
    assert summary.fp32_peak_flops_per_s == pytest.approx(2 * 16896 * 1.75e9)
    assert summary.limiter == "memory" and summary.registers == 28 and summary.occupancy_pct == pytest.approx(87.12)


def test_the_limiter_is_latency_when_neither_side_is_busy():
    launches, _ = parse_details_csv(NCU_SAMPLE.replace('"86.04"', '"31.00"'))
    assert summarise(launches, [RMSNORM])[0].limiter == "latency"


def test_kernel_names_come_from_the_triton_jit_functions(tmp_path):
    solution = tmp_path / "solution.py"
    solution.write_text(
        "import triton\nfrom triton import jit\n\n@triton.autotune(configs=[], key=['n'])\n@triton.jit\n"
        "def _tuned(x):\n    pass\n\n@jit\ndef _plain(x):\n    pass\n\n@triton.jit(do_not_specialize=['n'])\n"
        "def _called(n):\n    pass\n\ndef solution(x):\n    import helpers\n    return x\n"
    )
    (tmp_path / "helpers.py").write_text("import triton\n\n@triton.jit\ndef _helper_kernel(x):\n    pass\n")
    assert triton_kernel_names(solution) == ["_tuned", "_plain", "_called", "_helper_kernel"]
    assert kernel_filter(["_tuned", "_plain"]) == "regex:^(_tuned|_plain)$"
    solution.write_text("def broken(:\n")
    with pytest.raises(ToolError, match="does not parse"):
        triton_kernel_names(solution)


@pytest.fixture
def box(tmp_path):
    task = load_task("rmsnorm_residual", REPO)
    create_workspace(task, tmp_path / "work", set())
    (tmp_path / "work" / "solution.py").write_text(task.expert_path.read_text())
    return ToolBox(task, tmp_path / "work", "interpret")


def fake_ncu(tmp_path, monkeypatch, body: str):
    """An `ncu` on PATH running `body` (sh); NCU_SAMPLE lies beside it, where the sandbox lets it read."""
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    (tools / "sample.csv").write_text(NCU_SAMPLE)
    ncu = tools / "ncu"
    ncu.write_text(f"#!/bin/sh\n{body}\n")
    ncu.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    return tools


def test_profile_summarises_the_solutions_kernels(box, tmp_path, monkeypatch):
    tools = fake_ncu(tmp_path, monkeypatch, f'echo "$@" > ncu-args.txt\ncat {tmp_path / "bin" / "sample.csv"}')
    outcome = box.execute("profile", {"workload": "tiny"}, threading.Event())
    assert not outcome.is_error, outcome.text
    args = (box.work / "ncu-args.txt").read_text()  # written in the workspace: the sandbox lets ncu write there
    assert f"--kernel-name regex:^({RMSNORM})$" in args and "--csv --page details" in args
    assert "--section SpeedOfLight" in args and "dram__bytes.sum" in args
    text = outcome.text
    assert text.startswith("profiled rmsnorm_residual/tiny with Nsight Compute")
    assert f"{RMSNORM}: 2 launches, 141.0 us each (median)" in text
    assert "DRAM 3.82 TB/s, 80% of the device's 4.79 TB/s" in text
    assert "limited by: memory" in text and "ncu says: The kernel is utilizing greater than 80.0%" in text
    assert "grid (16384, 1, 1), block (256, 1, 1), 28 registers/thread, achieved occupancy 87%" in text
    assert "vectorized_elementwise_kernel" not in text and "==WARNING== Backing up device memory" in text
    assert tools.exists()


def test_a_bad_workload_name_is_refused_before_ncu_runs(box, tmp_path, monkeypatch):
    fake_ncu(tmp_path, monkeypatch, "touch ncu-ran")
    outcome = box.execute("profile", {"workload": "tiny-raged"}, threading.Event())
    assert outcome.is_error and "workload: expected one of these names" in outcome.text
    assert '"tiny-ragged"' in outcome.text
    assert not (box.work / "ncu-ran").exists()


def test_profile_past_its_timeout_is_an_error_result_and_leaves_nothing_running(box, tmp_path, monkeypatch):
    fake_ncu(tmp_path, monkeypatch, "sleep 60 &\nwait")  # a child of ncu too: the whole group must go
    box.eval_timeout_s = 1.0
    started = time.monotonic()
    outcome = box.execute("profile", {"workload": "tiny"}, threading.Event())
    assert time.monotonic() - started < 15
    assert outcome.is_error and "ran past its timeout (1 s)" in outcome.text


def test_unconfined_a_timeout_kills_what_ncu_started_too(box, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_NO_SANDBOX", "1")  # no PID namespace to take the profiled program down with ncu
    fake_ncu(tmp_path, monkeypatch, f"sleep 60 &\necho $! > {tmp_path / 'child.pid'}\nwait")
    box.eval_timeout_s = 1.0
    outcome = box.execute("profile", {"workload": "tiny"}, threading.Event())
    assert outcome.is_error and "ran past its timeout" in outcome.text
    stat = Path(f"/proc/{(tmp_path / 'child.pid').read_text().strip()}/stat")
    time.sleep(0.2)
    assert not stat.exists() or stat.read_text().split()[2] == "Z"  # gone (or a zombie until it is reaped)


def test_interrupting_a_profile_stops_it(box, tmp_path, monkeypatch):
    fake_ncu(tmp_path, monkeypatch, "sleep 60")
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    outcome = box.execute("profile", {"workload": "tiny"}, cancel)
    assert time.monotonic() - started < 15 and outcome.is_error and "interrupted" in outcome.text


def test_ncu_that_fails_is_reported_with_its_words(box, tmp_path, monkeypatch):
    fake_ncu(tmp_path, monkeypatch, 'echo "==ERROR== Failed to initialize the profiler: LibraryNotLoaded"\nexit 1')
    outcome = box.execute("profile", {"workload": "tiny"}, threading.Event())
    assert outcome.is_error and "profiling failed (exit code 1)" in outcome.text and "LibraryNotLoaded" in outcome.text


def test_no_kernel_profiled_says_which_kernels_were_looked_for(box, tmp_path, monkeypatch):
    fake_ncu(tmp_path, monkeypatch, 'echo "==WARNING== No kernels were profiled."')
    outcome = box.execute("profile", {"workload": "tiny"}, threading.Event())
    assert outcome.is_error and f"no launch of the solution's Triton kernels ({RMSNORM})" in outcome.text


def test_a_solution_without_a_kernel_has_nothing_to_profile(box, tmp_path, monkeypatch):
    fake_ncu(tmp_path, monkeypatch, "touch ncu-ran")
    (box.work / "solution.py").write_text(box.task.file("solution.py").read_text())
    outcome = box.execute("profile", {"workload": "tiny"}, threading.Event())
    assert outcome.is_error and "defines no @triton.jit kernel" in outcome.text
    assert not (box.work / "ncu-ran").exists()


def test_the_sandbox_shows_ncu_its_toolkit_and_nsight_compute(tmp_path):
    """On the H200 image `ncu` is a launcher in the CUDA toolkit's bin/ that looks for Nsight Compute beside the
    toolkit or under /opt/nvidia; shown only bin/, it said "Nsight Compute is not installed on your system"."""
    from workbench.session.profile_tool import ncu_install

    toolkit = tmp_path / "cuda-13.0"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "bin" / "ncu").write_text("#!/bin/sh\n")
    opt = tmp_path / "opt-nvidia"
    (opt / "nsight-compute" / "2025.3.1").mkdir(parents=True)
    (opt / "nsight-systems").mkdir()
    assert ncu_install(str(toolkit / "bin" / "ncu"), opt) == [toolkit, opt / "nsight-compute"]
    assert ncu_install(str(toolkit / "bin" / "ncu"), tmp_path / "absent") == [toolkit]
