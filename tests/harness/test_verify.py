"""The checker's independent checks of the worker's timing (workbench/harness/verify.py), on figures from the H200."""

import pytest

from workbench.harness.verify import check_batch, check_plausible, check_tail

FLUSH_MS, ROUND_TRIP_MS = 0.067, 0.4

# (wall ms, samples ms) of honest experts' batches of 4 on the H200, 2026-12-01 (cross_entropy, gram_syrk,
# fp8_rowwise_quant, histogram, rmsnorm_residual): the worker's host work between calls leaves up to half unexplained
HONEST = [(22.996, [3.0] * 4), (29.937, [4.0] * 4), (37.732, [4.533] * 4), (31.159, [4.62] * 4), (15.453, [3.6] * 4)]
# a host-bound batch: cross_entropy's expert on 16 rows (gemma-decode-16), H200 2026-12-01 18:35 UTC, which the
# rule rejected before it allowed for the guarded region's own entry and exit once a batch
HONEST.append((7.583, [0.455] * 4))


@pytest.mark.parametrize(("wall", "samples"), HONEST)
def test_honest_batches_pass(wall, samples):
    assert check_batch(wall, samples, FLUSH_MS, ROUND_TRIP_MS) is None


def test_work_on_a_stream_the_events_do_not_cover_is_rejected():
    """The events see only the launch; the device-wide synchronise before the reply waits for the real work."""
    problem = check_batch(wall_ms=22.0, samples_ms=[0.01] * 4, flush_ms=FLUSH_MS, round_trip_ms=ROUND_TRIP_MS)
    assert problem is not None and "outside the timed events" in problem


def test_a_latency_understated_by_three_times_is_rejected_and_by_half_is_not():
    true_ms, n = 3.0, 4
    wall = n * (true_ms + FLUSH_MS) + ROUND_TRIP_MS + n * 0.2
    assert check_batch(wall, [true_ms / 3] * n, FLUSH_MS, ROUND_TRIP_MS) is not None
    assert check_batch(wall, [true_ms / 1.5] * n, FLUSH_MS, ROUND_TRIP_MS) is None  # the documented blind spot


def test_samples_that_add_up_to_more_than_the_wall_clock_are_rejected():
    problem = check_batch(wall_ms=5.0, samples_ms=[3.0] * 4, flush_ms=FLUSH_MS, round_trip_ms=ROUND_TRIP_MS)
    assert problem is not None and "more than" in problem


@pytest.mark.parametrize("samples", [[], [float("nan")], [-1.0], [float("inf")]])
def test_unusable_samples_are_rejected(samples):
    assert check_batch(10.0, samples, FLUSH_MS, ROUND_TRIP_MS) is not None


def test_a_latency_under_the_speed_of_light_is_implausible():
    assert check_plausible(latency_ms=0.010, sol_ms=0.020) is not None
    assert check_plausible(latency_ms=0.0199, sol_ms=0.020) is None  # within the ceilings' own error
    assert check_plausible(latency_ms=0.030, sol_ms=0.020) is None
    assert check_plausible(latency_ms=0.010, sol_ms=None) is None


def test_a_device_busy_after_the_timed_calls_is_rejected_and_an_idle_one_is_not():
    assert check_tail(0.015, [0.02] * 4) is None  # the synchronise's own latency
    assert check_tail(0.5, [2.0] * 4) is None  # within a tenth of the batch
    problem = check_tail(3.2, [0.1] * 4)  # four 0.8 ms kernels left on a side stream
    assert problem is not None and "stayed busy" in problem


@pytest.mark.parametrize("tail", [None, "0.1", float("nan"), -1.0, 1])
def test_an_unusable_tail_is_rejected(tail):
    assert check_tail(tail, [1.0]) is not None


def test_the_devices_wait_before_a_batch_is_allowed_for_and_nothing_more():
    """Short calls issued while the device waits 10 ms: the wall clock holds the wait, which the checker asked for."""
    n, call_ms, wait_ms = 4, 0.1, 10.0
    wall = wait_ms + n * (call_ms + FLUSH_MS) + ROUND_TRIP_MS + 1.0
    assert check_batch(wall, [call_ms] * n, FLUSH_MS, ROUND_TRIP_MS, ahead_ms=wait_ms) is None
    assert check_batch(wall, [call_ms] * n, FLUSH_MS, ROUND_TRIP_MS) is not None  # the wait is not the calls' time
    hidden = wall + 15.0  # work past the wait that the samples do not show
    assert check_batch(hidden, [call_ms] * n, FLUSH_MS, ROUND_TRIP_MS, ahead_ms=wait_ms) is not None
