"""Static checks on a solution's source: it must launch a real Triton kernel and may not reach for
the reference, library kernels, fallbacks, concurrency, introspection, side streams or patches.

Names are resolved through the module's imports and plain assignments (`import torch.nn.functional as F`
makes `F.relu` read as `torch.nn.functional.relu`; so do `nn = torch.nn; nn.functional.relu`,
`getattr(torch, "nn")` and `torch.__dict__["nn"]`), so an alias is no way around a rule. A speed bump, not
the wall: what a static check cannot see the runtime guard catches while the solution runs. The rules
live in workbench/harness/static/.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from workbench.harness.result import StaticResult, Violation
from workbench.harness.static.checker import Checker
from workbench.harness.static.lists import DEFAULT_FORBIDDEN_CALLS

__all__ = ["DEFAULT_FORBIDDEN_CALLS", "check_source"]


SOLUTION_ONLY_RULES = frozenset({"no-triton-kernel", "dead-launch"})  # what only solution.py itself must satisfy


def check_source(source: str, forbidden_calls: Iterable[str] = (), helper: bool = False) -> StaticResult:
    """Run every static rule over a solution's source; violations carry rule names and line numbers. A `helper` is
    a module beside solution.py that it may import: every rule but those about solution() itself applies to it."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return StaticResult(ok=False, violations=[Violation("syntax", exc.lineno or 0, f"syntax error: {exc.msg}")])
    unique = {(v.line, v.rule, v.message): v for v in Checker(tree, tuple(forbidden_calls)).run()}
    violations = sorted(unique.values(), key=lambda v: (v.line, v.rule))
    if helper:
        violations = [v for v in violations if v.rule not in SOLUTION_ONLY_RULES]
    return StaticResult(ok=not violations, violations=violations)
