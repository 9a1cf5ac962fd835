"""The evaluation harness: static checks, correctness, timing and SOL for a solution on a task.

Needs only torch, triton, numpy and the standard library (nvtx when installed), so it runs as-is
on a GPU machine that has nothing else. The solution always runs in a child process.
"""

from workbench.harness.result import EvalResult, WorkloadResult
from workbench.harness.runner import EvalOptions, EvalUsageError, evaluate

__all__ = ["EvalOptions", "EvalResult", "EvalUsageError", "WorkloadResult", "evaluate"]
