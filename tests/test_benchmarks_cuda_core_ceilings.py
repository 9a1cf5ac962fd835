"""benchmarks/cuda_core_ceilings.py off the GPU: its arithmetic, and a missing GPU or bad input as one line, exit 2."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import cuda_core_ceilings as ceilings  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess[str]:
    script = BENCHMARKS / "cuda_core_ceilings.py"
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=120)


def test_a_rate_is_operations_over_time():
    # 1e6 lanes x 16 operations x 1000 iterations in 1 ms: 16e9 operations in 1e-3 s = 16 Tops/s
    assert ceilings.rate(1_000_000, 16, 1000, 1.0) == pytest.approx(16.0)


def test_the_difference_rate_cancels_a_fixed_cost():
    elements, ops = 540_672, 16
    peak = 60.0  # Tops/s the unit does once running
    fixed_ms = 0.030  # launch and ramp-up, paid by both chains

    def ms(iterations: int) -> float:
        return elements * ops * iterations / (peak * 1e12) * 1e3 + fixed_ms

    short, long = ms(ceilings.SHORT), ms(ceilings.LONG)
    assert ceilings.rate(elements, ops, ceilings.SHORT, short) < 0.75 * peak  # the fixed cost weighs on a short chain
    assert ceilings.difference_rate(elements, ops, short, long) == pytest.approx(peak)


def test_no_difference_rate_when_the_long_chain_was_not_longer():
    assert ceilings.difference_rate(1024, 16, 0.5, 0.5) is None
    assert ceilings.difference_rate(1024, 16, 0.5, 0.4) is None


def test_bad_reps_is_one_line_and_exit_2():
    done = run("--reps", "0")
    assert done.returncode == 2
    assert done.stderr.strip() == "cuda_core_ceilings.py: --reps must be at least 1"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message a machine without a GPU gets")
def test_without_a_gpu_it_says_so_and_exits_2():
    done = run()
    assert done.returncode == 2
    assert done.stderr.strip() == "cuda_core_ceilings.py: needs a CUDA GPU (none visible)"
