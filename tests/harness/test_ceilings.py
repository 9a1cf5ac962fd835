"""The speed-of-light time of a workload from its byte and FLOP counts and the device's ceilings."""

import pytest

from workbench.harness.ceilings import sol_ms

# 1 TB/s and 100 TFLOP/s: a GB costs 1 ms, a TFLOP 10 ms
CEILINGS = {"bandwidth_gbps": 1000.0, "matmul_tflops": 100.0}


def test_a_compute_bound_workload_is_limited_by_its_flops():
    assert sol_ms(1e9, 1e12, CEILINGS) == pytest.approx(10.0)  # memory alone would allow 1 ms


def test_a_memory_bound_workload_is_limited_by_its_bytes():
    assert sol_ms(4e9, 1e11, CEILINGS) == pytest.approx(4.0)  # compute alone would allow 1 ms


def test_the_two_ceilings_are_not_added():
    assert sol_ms(1e9, 1e11, CEILINGS) == pytest.approx(1.0)  # both terms 1 ms: the time is one of them, not 2 ms
