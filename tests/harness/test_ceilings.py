"""The device's ceilings: measured once per device, cached with where and when, a figure re-measured when the cache
holds an implausible one, and on a machine without a GPU every ceiling unavailable (never a figure made up)."""

import json

import pytest
import torch

from workbench.harness.ceilings import CEILING_KEYS, cached_ceilings, datasheet_sol, measure, sol
from workbench.harness.microbench import BENCHMARKS

# A plausible measurement of every ceiling (an H200-like device)
FIGURES = {"bandwidth_gbps": 4250.0, "matmul_tflops": 780.0, "tf32_tflops": 390.0, "fp8_tflops": 1500.0,
           "fp32_tflops": 60.0, "int32_tops": 30.0, "sfu_tops": 4.0, "step_us": 0.1}  # fmt: skip
KEY = "NVIDIA H200|sm90|cuda13.0|torch2.11.0"


class Measurer:
    """Stands in for the microbenchmarks: records which ceilings it was asked for."""

    def __init__(self, unavailable: dict[str, str] | None = None) -> None:
        self.asked: list[list[str]] = []
        self.unavailable = unavailable or {}

    def __call__(self, wanted: list[str]) -> tuple[dict[str, float], dict[str, str]]:
        self.asked.append(list(wanted))
        values = {k: FIGURES[k] * 1.01 for k in wanted if k not in self.unavailable}
        return values, {k: v for k, v in self.unavailable.items() if k in wanted}


def test_every_ceiling_of_the_model_has_a_benchmark():
    assert set(BENCHMARKS) == set(CEILING_KEYS)


def test_the_first_call_measures_every_ceiling_and_caches_them_with_when_and_how(tmp_path):
    path, measurer = tmp_path / "ceilings.json", Measurer()
    first = cached_ceilings(path, KEY, measurer)
    assert measurer.asked == [list(CEILING_KEYS)]
    assert first["step_us"] == pytest.approx(0.101) and "measured" in first["source"]
    stored = json.loads(path.read_text())[KEY]
    assert stored["measured_at"] and stored["gpu"] == "NVIDIA H200" and set(stored["methods"]) == set(CEILING_KEYS)
    again = cached_ceilings(path, KEY, measurer)
    assert len(measurer.asked) == 1 and again["source"].startswith("cached in")
    assert again["fp8_tflops"] == first["fp8_tflops"]


def test_an_implausible_cached_ceiling_is_measured_again_and_the_others_kept(tmp_path):
    path = tmp_path / "ceilings.json"
    planted = {**FIGURES, "sfu_tops": 1e9, "matmul_tflops": "fast", "device": KEY, "measured_at": "then"}
    path.write_text(json.dumps({KEY: planted}))
    measurer = Measurer()
    got = cached_ceilings(path, KEY, measurer)
    assert measurer.asked == [["matmul_tflops", "sfu_tops"]]
    assert got["sfu_tops"] == pytest.approx(4.04) and got["matmul_tflops"] == pytest.approx(787.8)
    assert got["bandwidth_gbps"] == FIGURES["bandwidth_gbps"]  # kept, not measured again


def test_a_figure_cached_by_an_older_form_of_its_benchmark_is_measured_again(tmp_path):
    # the FP32 chain once ran as one short launch (29.7 TFLOP/s on an H200 whose FMA peak is ~67)
    path = tmp_path / "ceilings.json"
    methods = {k: BENCHMARKS[k][0] for k in CEILING_KEYS} | {"fp32_tflops": "Triton kernel, one 256-step launch"}
    path.write_text(json.dumps({KEY: {**FIGURES, "fp32_tflops": 29.7, "methods": methods, "measured_at": "then"}}))
    measurer = Measurer()
    got = cached_ceilings(path, KEY, measurer)
    assert measurer.asked == [["fp32_tflops"]]
    assert got["fp32_tflops"] == pytest.approx(60.6) and got["sfu_tops"] == FIGURES["sfu_tops"]
    assert json.loads(path.read_text())[KEY]["methods"]["fp32_tflops"] == BENCHMARKS["fp32_tflops"][0]


def test_an_old_cache_with_two_ceilings_gains_the_others(tmp_path):
    path = tmp_path / "ceilings.json"
    path.write_text(json.dumps({KEY: {"bandwidth_gbps": 4200.0, "matmul_tflops": 770.0, "measured_at": "then"}}))
    measurer = Measurer()
    got = cached_ceilings(path, KEY, measurer)
    assert measurer.asked == [[k for k in CEILING_KEYS if k not in ("bandwidth_gbps", "matmul_tflops")]]
    assert got["bandwidth_gbps"] == 4200.0 and got["tf32_tflops"] == pytest.approx(393.9)


def test_an_unavailable_ceiling_is_recorded_with_its_reason_and_not_asked_again(tmp_path):
    path, measurer = tmp_path / "ceilings.json", Measurer({"fp8_tflops": "no fp8 matmul on this GPU"})
    got = cached_ceilings(path, KEY, measurer)
    assert "fp8_tflops" not in got and got["unavailable"] == {"fp8_tflops": "no fp8 matmul on this GPU"}
    cached_ceilings(path, KEY, measurer)
    assert len(measurer.asked) == 1


def test_a_planted_unavailable_copy_bandwidth_is_measured_anyway(tmp_path):
    path = tmp_path / "ceilings.json"
    entry = {k: v for k, v in FIGURES.items() if k != "bandwidth_gbps"}
    path.write_text(json.dumps({KEY: {**entry, "unavailable": {"bandwidth_gbps": "planted"}}}))
    measurer = Measurer()
    got = cached_ceilings(path, KEY, measurer)
    assert measurer.asked == [["bandwidth_gbps"]] and got["bandwidth_gbps"] == pytest.approx(4292.5)
    assert "bandwidth_gbps" not in got["unavailable"]


def test_a_measured_figure_outside_what_a_gpu_can_do_is_not_kept(tmp_path):
    def broken(wanted):
        return {k: (0.0 if k == "step_us" else FIGURES[k]) for k in wanted}, {}

    got = cached_ceilings(tmp_path / "ceilings.json", KEY, broken)
    assert "step_us" not in got and "outside" in got["unavailable"]["step_us"]


def test_without_a_gpu_every_ceiling_is_unavailable_and_none_is_a_figure():
    values, reasons = measure(torch.device("cpu"))
    assert values == {}
    assert set(reasons) == set(CEILING_KEYS)
    assert all("no CUDA device" in why for why in reasons.values())


def test_sol_on_measured_ceilings_names_the_binding_resource():
    # 1 GB at 4250 GB/s is 0.235 ms; 5000 dependent steps at 0.1 us are 0.5 ms and bind
    bound = sol({"bytes": 1e9, "fp32_ops": 1e9, "dependent_steps": 5000}, {**FIGURES, "device": KEY})
    assert bound.binding == "dependency" and bound.ms == pytest.approx(0.5)
    assert bound.hard_ms == pytest.approx(1e9 / 4250e9 * 1e3)


def test_the_datasheet_sol_uses_the_cited_figures_and_leaves_the_unknown_out():
    sheet = datasheet_sol({"bytes": 4.8e9, "sfu_ops": 1e15}, {**FIGURES, "gpu": "NVIDIA H200"})
    assert sheet is not None and sheet.binding == "hbm" and sheet.ms == pytest.approx(1.0)
    assert sheet.unknown == ["sfu"]  # the datasheet states no SFU rate
    assert datasheet_sol({"bytes": 1.0}, {"gpu": "NVIDIA H200 NVL"}) is None  # another board, other figures
