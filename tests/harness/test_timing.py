"""The sampling schedule of GPU timing, driven by fake batches and a fake clock (no GPU needed): functions take
their batches in alternating rounds, and timing stops on the standard-error target or the budget."""

import itertools

import pytest

from workbench.harness.timing import MIN_SAMPLES, TimingOptions, sample_in_rounds


class FakeGpu:
    """Batches of given sample values; every batch advances a fake clock by the time its samples took."""

    def __init__(self, values_of: dict[int, itertools.cycle]) -> None:
        self.values_of, self.now, self.order = values_of, 0.0, []

    def take_batch(self, i: int, first: int, size: int) -> list[float]:
        self.order.append((i, first, size))
        got = [next(self.values_of[i]) for _ in range(size)]
        self.now += sum(got) / 1e3
        return got

    def clock(self) -> float:
        return self.now


def test_functions_alternate_batch_by_batch_until_both_reach_the_target():
    gpu = FakeGpu({0: itertools.cycle([2.0]), 1: itertools.cycle([1.0])})
    samples, stops = sample_in_rounds(gpu.take_batch, [3, 5], TimingOptions(budget_s=10.0), gpu.clock)
    assert stops == [None, None]
    assert [i for i, _, _ in gpu.order] == [0, 1] * (len(gpu.order) // 2)
    # each batch continues the rotation of input sets where the function's last batch stopped
    assert [first for i, first, _ in gpu.order if i == 0] == list(range(0, 3 * len(gpu.order) // 2, 3))
    assert len(samples[0]) >= MIN_SAMPLES and len(samples[1]) >= MIN_SAMPLES


def test_a_settled_function_keeps_sampling_while_the_other_is_noisy_and_both_stop_at_the_budget():
    steady = itertools.cycle([1.0])
    noisy = itertools.cycle([1.0, 9.0])  # stderr stays far over 0.5% of the mean for any sample count here
    gpu = FakeGpu({0: steady, 1: noisy})
    options = TimingOptions(budget_s=0.05)
    samples, stops = sample_in_rounds(gpu.take_batch, [2, 2], options, gpu.clock)
    assert stops[0] is None
    assert stops[1] is not None and stops[1].startswith("stopped by the budget at")
    assert stops[1].endswith(f"after {len(samples[1])} samples")
    # the budget is per function: two functions may spend twice it, and the last round ends just past it
    assert gpu.now > 2 * options.budget_s and gpu.now <= 2 * options.budget_s + 2 * 9.0 / 1e3 + 2 * 1.0 / 1e3
    assert len(samples[0]) == len(samples[1])  # the steady one went on in every round


def test_a_function_at_max_samples_stops_while_the_other_goes_on():
    gpu = FakeGpu({0: itertools.cycle([1.0, 3.0]), 1: itertools.cycle([1.0, 3.0])})
    options = TimingOptions(budget_s=100.0, max_samples=12)
    samples, stops = sample_in_rounds(gpu.take_batch, [5, 4], options, gpu.clock)
    assert [len(got) for got in samples] == [12, 12]
    assert [size for i, _, size in gpu.order if i == 0] == [5, 5, 2]
    assert all(stop is not None and "after 12 samples" in stop for stop in stops)


@pytest.mark.parametrize("batch", [1, 10])
def test_a_single_function_is_timed_alone(batch):
    gpu = FakeGpu({0: itertools.cycle([1.0, 1.001])})
    samples, stops = sample_in_rounds(gpu.take_batch, [batch], TimingOptions(), gpu.clock)
    assert stops == [None] and {i for i, _, _ in gpu.order} == {0}
    assert len(samples[0]) >= MIN_SAMPLES


def _stop_count(options: TimingOptions) -> int:
    """Samples taken before the stop rule ends timing of one function that alternates between 0.02 and 0.03 ms,
    two samples a batch (so only even counts are checked). For n such samples the standard error of the mean is
    (0.01 / 2) / sqrt(n - 1) and the mean 0.025, so the relative error is 0.2 / sqrt(n - 1): under 5% first at
    n = 18 (17 > 16) and under 0.5% first at n = 1602 (1601 > 1600)."""
    gpu = FakeGpu({0: itertools.cycle([0.02, 0.03])})
    samples, stops = sample_in_rounds(gpu.take_batch, [2], options, gpu.clock)
    assert stops == [None], stops  # it reached the target, not the budget or max_samples
    return len(samples[0])


def test_timing_stops_exactly_when_the_standard_error_reaches_half_a_percent_by_default():
    assert TimingOptions().target_rel_err == 0.005
    assert _stop_count(TimingOptions()) == 1602


def test_a_looser_target_stops_sooner_at_its_own_exact_point():
    assert _stop_count(TimingOptions(target_rel_err=0.05)) == 18
