"""The runtime guard in this process, on CPU tensors: what it refuses, what it lets through."""

import pytest
import torch

from workbench.harness.solution_side.guard import ForbiddenCall, SolutionGuard, resolve_callables, suspended
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


def test_trusted_code_runs_suspended():
    with guard():
        with suspended():
            (torch.ones(2) * 3).sum()


def test_guard_is_gone_after_the_block():
    with guard():
        pass
    assert float((torch.ones(2) * 3).sum()) == 6.0
