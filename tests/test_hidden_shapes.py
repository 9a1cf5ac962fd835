"""Hidden shapes: every task declares correctness-only workloads the agent never sees, an honest expert passes them,
and a solution specialised to the visible shapes passes the visible interpret workloads but fails a hidden one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import FIXTURE_SOLUTIONS, REPO

from workbench.harness import evaluate
from workbench.harness.runner import EvalOptions
from workbench.tasks import Task, load_task, task_names

HIDDEN_FIXTURES = FIXTURE_SOLUTIONS / "hidden"

# (task, fixture, the hidden workload it must fail): each fixture hard-codes something of the visible shapes.
SPECIALISED = [
    ("rmsnorm_residual", "rmsnorm_residual_block512.py", "h-odd-1000"),  # BLOCK = 512 covers hidden 256 and 320
    ("swiglu", "swiglu_f333.py", "h-one-row"),  # F = 333 baked in
    ("sliding_window_max", "sliding_window_max_w64.py", "h-bf16-w2"),  # window 64 baked in
]

# Integer parameters that task.md fixes, or that shape the value distribution rather than a size (both 0 and 1 are
# visible already); every other integer parameter must take a value in some hidden workload that no visible one has.
FIXED = {
    "csr_spmm": {"min_deg"},
    "embedding_bag": {"min_bag"},
    "segment_softmax": {"min_degree"},
    "causal_conv1d": {"W"},  # d_conv = 4 is part of the task
    "paged_decode_attention": {"head_dim", "block_size"},  # D = 128; pages of 16 or 32, both visible already
    "flash_attention_causal": {"head_dim"},  # D = 64 or 128, both visible already
    "chunked_linear_attention": {"head_dim"},  # 64 or 128, both visible already
    "rope_qk_norm": {"D"},  # 64, 128, 256: all visible already
}


def _hidden_interpret(task: Task) -> Task:
    """The task with its hidden interpret workloads in place of the visible ones (until eval grows a hidden
    option, this is how a check of the hidden shapes runs through the public API)."""
    return dataclasses.replace(task, workloads=tuple(w for w in task.hidden if w.interpret))


def _interpret(task: Task, solution: Path, seeds: int = 2):
    # well under pytest's 600 s: a hang (one was seen once in CI, not reproduced in 30 runs since) then fails with
    # the harness's own report of where the worker was, instead of pytest's cut
    return evaluate(task, solution, EvalOptions(mode="interpret", seeds=seeds, timeout_s=240))


@pytest.mark.parametrize("name", task_names(REPO))
def test_every_task_hides_new_sizes_of_every_shape_parameter(name):
    task = load_task(name, REPO)
    assert any(w.interpret for w in task.hidden) and any(not w.interpret for w in task.hidden), name
    assert all(w.hidden for w in task.hidden) and not any(w.hidden for w in task.workloads)
    visible_params = [w.params for w in task.workloads]
    for w in task.hidden:
        assert w.params not in visible_params, f"{name}/{w.name} repeats a visible workload"
        assert task.sol_work(w)["bytes"] > 0
    sizes = {k for w in task.workloads for k, v in w.params.items() if isinstance(v, int) and not isinstance(v, bool)}
    for key in sizes - FIXED.get(name, set()):
        seen = {w.params.get(key) for w in task.workloads}
        assert {w.params.get(key) for w in task.hidden} - seen, f"{name}: no hidden workload has a new {key}"


@pytest.mark.parametrize(("name", "fixture", "hidden"), SPECIALISED)
def test_a_solution_specialised_to_the_visible_shapes_fails_a_hidden_one(name, fixture, hidden):
    task = load_task(name, REPO)
    solution = HIDDEN_FIXTURES / fixture
    visible = _interpret(task, solution)
    assert visible.correct, [(w.name, w.failure, w.error) for w in visible.workloads]
    result = _interpret(_hidden_interpret(task), solution)
    assert not result.correct
    failed = {w.name: w for w in result.workloads if not w.correct}
    assert hidden in failed, [(w.name, w.failure) for w in result.workloads]
    assert failed[hidden].failure in ("mismatch", "unwritten", "shape"), failed[hidden].error


@pytest.mark.parametrize("name", task_names(REPO))
def test_the_expert_passes_every_hidden_interpret_workload(name):
    task = load_task(name, REPO)
    assert task.expert_path is not None
    result = _interpret(_hidden_interpret(task), task.expert_path, seeds=1)
    assert result.correct, [(w.name, w.failure, w.error) for w in result.workloads if not w.correct]
    assert {w.name for w in result.workloads} == {w.name for w in task.hidden if w.interpret}
