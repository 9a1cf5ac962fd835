"""`[expected] float64`: a reference whose own fp32 rounding is coarse must not reject a kernel that is closer to the
exact answer than the reference is (segment_softmax's CSR sum did, on the H200)."""

import shutil

import pytest
import torch
from conftest import FIXTURE_ROOT, REPO

from workbench.harness import EvalOptions, evaluate
from workbench.harness.checker import load_module
from workbench.harness.workload_check import reference_in_float64
from workbench.tasks import load_task, task_names

# alpha * x + y, written so that fp32 cancels catastrophically (an ulp of 1e8 * |x| is ~8 |x|) and float64 does not
LOSSY = "def reference(x, y, alpha):\n    return (alpha * x + y + x * 1e8) - x * 1e8\n"


def lossy(x, y, alpha):
    return (alpha * x + y + x * 1e8) - x * 1e8


def test_the_float64_reference_is_the_exact_answer_in_the_inputs_dtype():
    x, y = torch.randn(4096), torch.randn(4096)
    exact = 2.5 * x.double() + y.double()
    native, wide = lossy(x, y, 2.5), reference_in_float64(lossy, (x, y, 2.5))
    assert wide.dtype == native.dtype == torch.float32
    assert (native.double() - exact).abs().max() > 1.0  # the planted loss is real ...
    assert (wide.double() - exact).abs().max() <= exact.abs().max() * 2**-23  # ... and gone in float64
    pair = reference_in_float64(lambda a, n: (a * 3, torch.arange(n)), (x.half(), 5))
    assert pair[0].dtype == torch.float16 and pair[1].dtype == torch.int64  # integer outputs and args untouched


@pytest.fixture
def lossy_task(tmp_path, monkeypatch):
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    folder = root / "tasks" / "scale_add"
    (folder / "reference.py").write_text(LOSSY)
    monkeypatch.setenv("WORKBENCH_ROOT", str(root))
    return folder / "task.toml"


def test_a_correct_kernel_is_rejected_by_a_lossy_reference_and_accepted_against_its_float64_answer(lossy_task):
    options = EvalOptions(mode="interpret", seeds=1, timeout_s=120, workloads=["tiny"])
    task = load_task("scale_add")
    assert not task.expected_float64
    result = evaluate(task, task.expert_path, options)
    assert not result.correct and result.workloads[0].failure == "mismatch", result.to_dict()

    lossy_task.write_text(lossy_task.read_text().replace("[sol]", "[expected]\nfloat64 = true\n\n[sol]", 1))
    task = load_task("scale_add")
    assert task.expected_float64
    result = evaluate(task, task.expert_path, options)
    assert result.correct, result.to_dict()


@pytest.mark.parametrize("name", [n for n in task_names(REPO) if load_task(n, REPO).expected_float64])
def test_a_task_that_asks_for_float64_has_a_reference_written_dtype_generically(name):
    """Its float64 answer has the dtypes and shapes of its native one, on every CI-sized workload."""
    task = load_task(name, REPO)
    inputs = load_module(f"_inputs_{name}", task.file("inputs.py"))
    reference = load_module(f"_reference_{name}", task.file("reference.py"))
    for w in (w for w in task.workloads if w.interpret):
        args = tuple(inputs.make_inputs(dict(w.params), 11, torch.device("cpu")))
        native, wide = reference.reference(*args), reference_in_float64(reference.reference, args)
        for a, b in zip(
            native if isinstance(native, tuple) else (native,), wide if isinstance(wide, tuple) else (wide,)
        ):
            assert (a.dtype, a.shape) == (b.dtype, b.shape), w.name
            assert torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-6), w.name
