"""The runtime guard in this process, on CPU tensors: what it refuses, what it lets through."""

from pathlib import Path

import numpy as np
import pytest
import torch

from workbench.harness.solution_side import guard as guard_module
from workbench.harness.solution_side.guard import (
    READ_BUDGET,
    ForbiddenCall,
    SolutionGuard,
    note_launch,
    resolve_callables,
    suspended,
    unsuspended,
)
from workbench.harness.solution_side.poison import poisoned_mask
from workbench.harness.static_checks import DEFAULT_FORBIDDEN_CALLS

FORBIDDEN = resolve_callables(DEFAULT_FORBIDDEN_CALLS + ("torch.cumsum",))


def guard(**kwargs):
    return SolutionGuard(FORBIDDEN, kwargs.get("allowed", ()), poison=True)


def test_glue_is_allowed_and_fresh_outputs_are_poisoned():
    x = torch.randn(4, 8)
    with guard():
        out = torch.empty_like(x)
        flat = x.view(-1)[:5].contiguous().to(torch.float64)
        n = int(torch.tensor([3]).item())
        zeros = torch.zeros(3)
    assert bool(poisoned_mask(out).all())
    assert flat.shape == (5,) and n == 3 and bool((zeros == 0).all())


@pytest.mark.parametrize(
    "smuggle",
    [
        lambda x: getattr(torch, "mat" + "mul")(x, x.T),
        lambda x: torch.Tensor.__matmul__(x, x.T),
        lambda x: torch.nn.functional.relu(x),
        lambda x: x.exp(),
        lambda x: x * 2,
        lambda x: torch.cumsum(x, 0),
    ],
)
def test_compute_outside_triton_is_refused(smuggle):
    x = torch.randn(4, 4)
    with pytest.raises(ForbiddenCall), guard():
        smuggle(x)


def test_a_swallowed_refusal_is_still_a_violation():
    g = guard()
    with pytest.raises(ForbiddenCall, match="aten.add"):
        with g:
            try:
                torch.ones(2) + torch.ones(2)
            except ForbiddenCall:
                pass
    assert g.violations


def test_a_task_can_allow_specific_ops():
    with guard(allowed=("aten.max",)):
        torch.tensor([1, 5, 2]).max()


@pytest.fixture
def as_harness(monkeypatch):
    """Make this test file count as the package's own code (the harness), as triton_patches.py does."""
    monkeypatch.setattr(guard_module, "_HERE", str(Path(__file__).resolve().parent))


def test_trusted_code_runs_suspended_and_hooks_run_guarded(as_harness):
    with guard():
        with suspended():
            (torch.ones(2) * 3).sum()
    g = guard()
    with pytest.raises(ForbiddenCall, match="aten.mul"), g, suspended():
        with unsuspended():
            try:
                torch.ones(2) * 3
            except ForbiddenCall:
                pass
    assert g.violations


def test_the_solution_cannot_suspend_the_guard_itself():
    g = guard()
    with pytest.raises(ForbiddenCall, match="suspended"), g:
        with suspended():
            torch.ones(2) * 3
    assert "the solution called the guard's suspended()" in g.violations


def test_launches_are_counted_per_call_and_only_from_the_harness(as_harness):
    g = guard()
    with g:
        note_launch()
        note_launch()
    assert g.launches == 2
    with g:
        pass
    assert g.launches == 0


def test_the_solution_cannot_count_a_launch():
    g = guard()
    with pytest.raises(ForbiddenCall, match="note_launch"), g:
        note_launch()
    assert g.launches == 0


def test_a_custom_op_with_an_allowed_name_is_refused():
    lib = torch.library.Library("wbtest", "DEF")
    lib.define("empty_like(Tensor x) -> Tensor")
    lib.impl("empty_like", lambda x: x * 2, "CompositeExplicitAutograd")
    x = torch.ones(4)
    with pytest.raises(ForbiddenCall, match="wbtest::empty_like"), guard():
        torch.ops.wbtest.empty_like(x)


def _chunked(x):  # 16 elements at a time: each conversion small, the call's total a workload's data
    out = torch.empty_like(x)
    for i in range(0, x.numel(), 16):
        out[i : i + 16].copy_(torch.tensor([v * 2 for v in x[i : i + 16].tolist()]))
    return out


@pytest.mark.parametrize(
    "round_trip",
    [
        lambda x: torch.from_numpy(x.numpy() * 2),
        lambda x: torch.tensor([v * 2 for v in x.tolist()]),
        lambda x: torch.as_tensor(np.asarray(x) * 2),
        lambda x: torch.from_numpy(np.from_dlpack(x) * 2),
        lambda x: torch.frombuffer(bytearray(bytes(x.untyped_storage())), dtype=torch.float32),
        lambda x: torch.frombuffer(bytearray(bytes(x[:1].untyped_storage())), dtype=torch.float32),  # a view's base
        lambda x: torch.tensor([float(v) for v in x]),
        _chunked,
    ],
    ids=["numpy", "tolist", "asarray", "dlpack", "storage", "storage-of-view", "item-loop", "chunked"],
)
def test_round_trips_of_task_data_through_python_are_refused(round_trip):
    x = torch.randn(4096)
    with pytest.raises(ForbiddenCall, match=f"more than {READ_BUDGET} tensor elements read into Python"), guard():
        round_trip(x)


def test_a_schedule_made_on_the_host_and_a_few_hundred_scalars_may_cross():
    """A grouped GEMM reads its expert offsets (128 experts) and sends a tile table built from shapes."""
    offsets, x = torch.arange(129) * 32, torch.randn(4, 8)
    with guard():
        bounds = offsets.tolist()
        tiles = torch.tensor([v for i in range(64) for j in range(i, 64) for v in (i, j)], dtype=torch.int32)
        lookup = torch.from_numpy(np.arange(5000, dtype=np.int64))
        n = int(torch.tensor([x.shape[0], 3])[0].item())
    assert bounds[-1] == 128 * 32 and tiles.numel() == 64 * 65 and lookup.numel() == 5000 and n == 4


def test_pinned_host_memory_is_refused_inside_a_call():
    """A kernel could write task data to pinned host memory, which numpy then reads by its address."""
    with pytest.raises(ForbiddenCall, match="pinned host memory"), guard():
        torch.empty(16, pin_memory=True)


def test_the_read_budget_is_below_the_inputs_of_every_ci_sized_and_hidden_workload():
    """Else a solution could compute a CI-sized workload on the host within the budget."""
    from conftest import REPO

    from workbench.harness.checker import load_module
    from workbench.tasks import load_task, task_names

    for name in task_names(REPO):
        task = load_task(name, REPO)
        inputs = load_module(f"_budget_inputs_{name}", task.file("inputs.py"))
        for w in (w for w in (*task.workloads, *task.hidden) if w.interpret):
            args = inputs.make_inputs(dict(w.params), 3, torch.device("cpu"))
            elements = sum(a.numel() for a in args if isinstance(a, torch.Tensor))
            assert elements > READ_BUDGET, (name, w.name, elements)


@pytest.mark.gpu
def test_a_copy_of_task_data_from_the_gpu_to_the_host_counts_as_read_into_python():
    x = torch.randn(4096, device="cuda")
    with pytest.raises(ForbiddenCall, match="a copy from the GPU to the host"), guard():
        x.cpu()
    host = torch.empty(4096)
    with pytest.raises(ForbiddenCall, match="a copy from the GPU to the host"), guard():
        host.copy_(x)
    with guard():
        counts = x[:129].cpu()
    assert counts.numel() == 129


@pytest.mark.parametrize(
    "unlock",
    [
        lambda: torch._C._pop_torch_dispatch_stack(),
        lambda: torch._C._pop_torch_function_stack(),
        lambda: torch._C._DisableTorchDispatch().__enter__(),
        lambda: torch._C.DisableTorchFunction().__enter__(),
        lambda: torch._C._unset_dispatch_mode(torch._C._TorchDispatchModeKey.FAKE),
    ],
)
def test_disabling_the_modes_inside_a_call_is_refused(unlock):
    x = torch.randn(4, 4)
    g = guard()
    with pytest.raises(ForbiddenCall), g:
        try:
            unlock()
        except ForbiddenCall:
            pass  # swallowed: still recorded
        x @ x  # and the modes are still there to refuse this
    assert "modes must stay on" in g.violations[0] and "matmul" in g.violations[1]
    assert float((torch.ones(2) * 3).sum()) == 6.0  # and torch works outside calls


@pytest.mark.parametrize(
    "pop",
    [
        lambda held: held.append(torch.overrides._pop_mode()),
        lambda held: held.append(torch.utils._python_dispatch._pop_mode_temporarily()) or held[0].__enter__(),
    ],
)
def test_popping_a_mode_through_torch_helpers_is_refused_from_solution_code(pop):
    """torch's Python helpers that pop a mode are refused to a caller outside torch while a call runs (torch's own
    handle_torch_function keeps using them); what gets past is still noticed after the call."""
    g = guard()
    held: list = []  # kept past the call, as a solution would
    with pytest.raises(ForbiddenCall, match="_pop_mode.* inside solution|tampered.*modes"), g:
        pop(held)
    held.clear()  # a held _pop_mode_temporarily pushes the guard's mode back when it dies: pop it again
    while torch._C._len_torch_dispatch_stack():
        torch._C._pop_torch_dispatch_stack(None)
    assert float((torch.ones(2) * 3).sum()) == 6.0  # the stacks are restored


def test_the_guard_state_cannot_be_rebound():
    g = guard()
    with pytest.raises(AttributeError):
        g.allowed_ops = frozenset({"mm"})  # type: ignore[misc]
    with pytest.raises(ForbiddenCall, match="tampered"), g:
        object.__setattr__(g, "_allowed", frozenset({"aten.mm"}))
    assert g.verify_intact() is not None


def test_patching_torch_timing_classes_is_noticed_after_the_call():
    g = guard()
    original = torch.cuda.Event.elapsed_time
    try:
        with pytest.raises(ForbiddenCall, match="timing classes"), g:
            torch.cuda.Event.elapsed_time = lambda self, other: 0.001  # type: ignore[method-assign]
    finally:
        torch.cuda.Event.elapsed_time = original  # type: ignore[method-assign]
    assert g.verify_intact() is None


def test_a_timing_class_patched_before_the_guard_exists_is_noticed_too():
    """A solution that patches between two guarded calls (from a hook that runs while the worker replies) must not
    become the next guard's baseline: the classes are compared with what torch had when the worker started."""
    assert "zero_" not in vars(torch.Tensor)  # TensorBase's: the patch adds a name to Tensor, the undo removes it
    try:
        torch.Tensor.zero_ = lambda self: self  # type: ignore[method-assign]
        g = guard()
        with pytest.raises(ForbiddenCall, match="timing classes"), g:
            pass
    finally:
        del torch.Tensor.zero_
    assert guard().verify_intact() is None


def test_an_intact_call_verifies():
    g = guard()
    with g:
        torch.empty(3)
        assert g.verify_intact() is None
    assert g.verify_intact() is None and g.violations == ()


def test_guard_is_gone_after_the_block():
    with guard():
        pass
    assert float((torch.ones(2) * 3).sum()) == 6.0


def test_the_first_guarded_op_imports_neither_dynamo_nor_sympy():
    """torch's wrapper around a mode's __torch_dispatch__ imports torch._dynamo and sympy on the first op (1.4-1.8 s of
    every worker's start here, 4-7 s on the H200 host); the guard's mode opts out of it."""
    import subprocess
    import sys

    code = (
        "import sys, torch\n"
        "from workbench.harness.solution_side.guard import SolutionGuard\n"
        "with SolutionGuard({}, (), poison=True):\n"
        "    torch.empty(64).fill_(1.0)\n"
        "print(sorted(m for m in ('torch._dynamo', 'sympy') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_a_read_that_copies_to_the_host_first_is_counted_once(monkeypatch):
    """`tolist()` of a GPU tensor copies it to the host inside the call; those elements are the ones tolist() counts,
    not more (on the H200 129 expert offsets counted as 258 refused a grouped GEMM). Here the host copy of a CPU
    tensor stands in for the GPU's: a copy counted as one from the GPU, inside a read already counted."""
    monkeypatch.setattr(guard_module, "_copied_to_host", lambda name, args, kwargs: 200 if name == "_to_copy" else 0)
    offsets = torch.arange(200)
    with guard() as g:
        g.reading_out(+1)
        try:
            offsets.to(torch.float64)  # a `_to_copy`, which the patch reports as 200 elements from the GPU ...
            offsets.to(torch.float64)  # ... twice: 400 elements, over the budget were they counted again
        finally:
            g.reading_out(-1)
    with pytest.raises(ForbiddenCall, match="read into Python"), guard():
        offsets.to(torch.float64)
        offsets.to(torch.float64)  # two copies out, 400 elements: over the budget


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_tolist_of_gpu_offsets_counts_each_element_once():
    offsets = torch.arange(129, device="cuda") * 32
    with guard():
        bounds = offsets.tolist()
    assert bounds[-1] == 128 * 32
    with pytest.raises(ForbiddenCall, match="read into Python"), guard():
        torch.arange(READ_BUDGET + 1, device="cuda").tolist()


def test_a_tensor_subclass_cannot_run_its_hook_where_the_guard_does_not_look():
    """A subclass's __torch_function__ runs inside the guard's own handler, with the guard's function mode off: there
    it read the task's data with numpy() (and, inside a tolist(), copied it from the GPU uncounted)."""
    data = torch.randn(100_000)
    seen = []

    class Peeking(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(float(data.numpy().sum()))
            with torch._C.DisableTorchFunctionSubclass():
                return func(*args, **(kwargs or {}))

    with pytest.raises(ForbiddenCall, match="subclass"), guard():
        torch.arange(3).as_subclass(Peeking).view(-1)
    assert seen == []
    with guard():  # plain tensors pass as before
        torch.arange(3).view(-1).tolist()
