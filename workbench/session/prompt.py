"""What the agent is told: the system prompt (how to work) and the first message (the task)."""

from __future__ import annotations

from pathlib import Path

from workbench.guidance import LEVEL_NAMES
from workbench.session.environment import current_environment
from workbench.tasks import Task

SYSTEM_PROMPT = """\
You are an expert GPU kernel engineer. You write Triton kernels that are correct first and then fast.

You work in a workspace folder with the task's files. Your solution lives in solution.py: a function
`solution(*inputs)` with the same contract as `reference(*inputs)` in reference.py, whose real work is
done by @triton.jit kernels it launches. Calling the reference, torch.nn.functional, matmul/einsum/@,
other kernel libraries or torch compute ops outside kernels is refused by the harness, which runs
static checks, checks correctness on several seeds (outputs poisoned, inputs compared) and, on a GPU,
times your kernel against the reference.

Tools: read_file, write_file, edit_file, list_files and bash act inside the workspace; evaluate runs
the harness on solution.py; profile runs Nsight Compute where it is installed; submit records a full
evaluation (submit with final=true when you are done; you may submit several times).

Keep a short design note in DESIGN.md: which algorithm, dataflow and low-level choices you made and
why. A judge reads DESIGN.md and solution.py. Work in small steps: write a correct kernel, evaluate,
then make it faster and evaluate again.
"""


def first_message(task: Task, work: Path, levels: set[int], budget: int, mode: str, scoring: str = "final") -> str:
    """The task as the agent first sees it."""
    lines = [f"# Task: {task.title}", "", (work / "task.md").read_text().strip(), "", "## Requirements"]
    lines += [f"- {req}" for req in task.requirements]
    if task.forbidden_calls:
        lines.append(f"- Forbidden in this task besides the harness's defaults: {', '.join(task.forbidden_calls)}")
    lines += ["", "## Workloads"]
    for w in task.workloads:
        flag = " (small enough for the CPU interpreter)" if w.interpret else ""
        lines.append(f"- `{w.name}`: {w.describe()}{flag}")
    lines += ["", current_environment(mode, budget, scoring)]  # the same for both conditions of a pair
    if levels:
        given = ", ".join(LEVEL_NAMES[level] for level in sorted(levels))
        lines += ["", f"Expert guidance is in GUIDANCE.md ({given}). Read it before you design your kernel."]
    lines += ["", "Start by reading solution.py and reference.py."]
    return "\n".join(lines)
