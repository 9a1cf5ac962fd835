"""The environment block: the machine's facts, the versions, the timing and the scoring, the same for both conditions
of a pair; the device asked once and cached."""

import json
import os
import stat

from workbench.session.environment import Scoring, device_facts, environment_block, measured_ceilings

H200 = {"name": "NVIDIA H200", "capability": "9.0", "sms": 132, "memory_gib": 139.8, "l2_mib": 60.0,
        "smem_per_sm_kib": 228, "regs_per_sm": 65536, "cuda": "13.0"}  # fmt: skip


def test_on_a_gpu_the_block_names_the_device_its_ceilings_and_the_rules():
    ceilings = {"bandwidth_gbps": 4251.3, "matmul_tflops": 786.2}
    text = environment_block("cuda", H200, ceilings, budget=350)
    for needed in ("NVIDIA H200", "132 SMs", "60.0 MiB of L2", "228 KiB of shared memory per SM", "4.8 TB/s",
                   "4251 GB/s", "786 TFLOP/s", "CUDA events", "geometric mean", "last submission counts", "0.5",
                   "350 turns"):  # fmt: skip
        assert needed in text, needed
    assert "Your best correct submission counts" in environment_block("cuda", H200, None, 10, Scoring(counted="best"))


def test_without_a_gpu_timing_is_unavailable_never_invented():
    text = environment_block("interpret", None, None, budget=50)
    assert "timing is unavailable" in text and "GB/s" not in text and "SMs" not in text


def test_the_device_is_asked_once_and_cached(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'NVIDIA H200, 580.159.04'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    cache = tmp_path / "device.json"
    assert device_facts(cache) is None  # the probe needs CUDA torch: not here, and nothing is cached
    cache.write_text(json.dumps({"NVIDIA H200, 580.159.04": H200}))
    assert device_facts(cache) == H200


def test_measured_ceilings_are_found_for_the_gpu_by_name(tmp_path):
    path = tmp_path / "ceilings.json"
    path.write_text(json.dumps({"NVIDIA H200|sm90|cuda13.0|torch2.11": {"bandwidth_gbps": 4251, "matmul_tflops": 786}}))
    assert measured_ceilings(path, "NVIDIA H200")["bandwidth_gbps"] == 4251
    assert measured_ceilings(path, "NVIDIA A100") is None


def test_a_guided_and_an_unguided_first_message_carry_the_same_environment_block():
    from workbench.session.environment import current_environment
    from workbench.session.prompt import first_message
    from workbench.tasks import load_task

    task = load_task("cross_entropy")
    block = current_environment("interpret", 120)
    for levels in (set(), {1}, {1, 2, 3}):
        assert block in first_message(task, task.path, levels, 120, "interpret")


def test_the_block_names_every_measured_ceiling_and_how_sol_is_taken():
    ceilings = {"bandwidth_gbps": 4251.3, "matmul_tflops": 786.2, "fp32_tflops": 61.2, "sfu_tops": 4.05,
                "step_us": 0.081}  # fmt: skip
    text = environment_block("cuda", H200, ceilings, budget=350)
    for needed in ("61.2 TFLOP/s fp32", "4.05 Tops/s SFU", "0.081 us dependent step", "binding resource"):
        assert needed in text, needed
    assert "max(bytes / bandwidth, FLOPs / matmul rate)" not in text
