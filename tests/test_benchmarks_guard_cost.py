"""benchmarks/guard_cost.py off the GPU: bad input and a missing GPU are one line and exit 2, never a traceback."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "guard_cost.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_an_unknown_task_is_one_line_and_exit_2():
    done = run("no_such_task")
    assert done.returncode == 2
    assert done.stderr.strip().startswith("guard_cost.py: ") and "no_such_task" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_missing_solution_file_is_one_line_and_exit_2(tmp_path):
    done = run("stream_compaction", "--solution", str(tmp_path / "absent.py"))
    assert done.returncode == 2
    assert done.stderr.strip() == "guard_cost.py: no solution file for stream_compaction"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message a machine without a GPU gets")
def test_without_a_gpu_it_says_so_and_exits_2():
    done = run("stream_compaction")
    assert done.returncode == 2
    assert "needs a CUDA GPU" in done.stderr and "Traceback" not in done.stderr
