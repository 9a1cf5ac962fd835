"""Dead launches and host round trips: does what `solution` returns come from a kernel launch?

A reasonable approximation, inside one function at a time and flow-insensitive. A name is *written* when it, or
a view of it (`out.view(-1)`, `out[:n]`, `out.t()`), is an argument of a kernel launch or of a host helper that
launches, or when it is returned by such a helper. The outputs checked are those of the last `return` of
`solution` (earlier returns are guard clauses, such as an empty input). An output that is not written is a
`dead-launch`, or a `host-compute` when it is made by `.tolist()`, `.numpy()` or `torch.tensor(...)` of data.

Limits, on purpose (a speed bump; the runtime guard is the wall): a non-view expression counts as written when
any name in it is written and is not a view of an input (so `torch.cat([a, b])` of kernel outputs passes);
names stored in containers, attributes and globals are followed only by name; a helper returning one of its
arguments is trusted when either side launches on it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from workbench.harness.result import Violation
from workbench.harness.static.kernels import Kernels
from workbench.harness.static.lists import TENSORS_FROM_DATA
from workbench.harness.static.names import Names

VIEW_METHODS = frozenset(
    {
        "view", "reshape", "t", "transpose", "permute", "contiguous", "squeeze", "unsqueeze", "flatten", "unflatten",
        "expand", "expand_as", "narrow", "select", "view_as", "reshape_as", "as_strided", "movedim", "swapaxes",
        "unbind", "split", "chunk", "tensor_split", "diagonal", "detach", "to", "float", "half", "bfloat16", "int",
        "long", "bool", "double", "cpu", "cuda", "squeeze_", "unsqueeze_", "clone",
    }
)  # fmt: skip
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
_ALLOCATIONS = frozenset(
    {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "empty_strided",
     "new_empty", "new_zeros", "new_ones", "new_full", "arange"}
)  # fmt: skip
_MAX_DEPTH = 4


def check_outputs(names: Names, kernels: Kernels) -> Iterator[Violation]:
    """Violations for outputs of `solution` that no kernel launch writes."""
    if "solution" not in kernels.functions or not kernels.launchers & ({"solution"} | _reached(kernels)):
        return  # no launch at all is the `no-triton-kernel` rule's finding
    yield from _Scope(names, kernels, kernels.functions["solution"], 0).check_returns()


def _reached(kernels: Kernels) -> set[str]:
    return {callee for _, callee in kernels.calls_in(kernels.functions["solution"])}


class _Scope:
    def __init__(self, names: Names, kernels: Kernels, fn: ast.FunctionDef, depth: int) -> None:
        self.names, self.kernels, self.fn, self.depth = names, kernels, fn, depth
        self.params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        self.params |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
        self.values: dict[str, list[ast.expr]] = {}
        self.parent: dict[str, str] = {}
        for node in ast.walk(fn):
            for target, value in _assignments(node):
                for name, part in _bind(target, value):
                    self.values.setdefault(name, []).append(part)
                    root = self._view_root(part)
                    if root is not None:
                        self._union(name, root)
        self.touched = {self._find(n) for n in self._launch_argument_names()}
        self.input_classes = {self._find(p) for p in self.params}

    # -- views: names that share storage are one class ------------------------------------------
    def _find(self, name: str) -> str:
        while self.parent.get(name, name) != name:
            name = self.parent[name]
        return name

    def _union(self, a: str, b: str) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[ra] = rb

    def _view_root(self, node: ast.expr) -> str | None:
        while True:
            if isinstance(node, ast.Name):
                return node.id
            if isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr in _VIEW_ATTRIBUTES):
                node = node.value
            elif isinstance(node, ast.Starred):
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in VIEW_METHODS:
                node = node.func.value
            else:
                return None

    def _launch_argument_names(self) -> set[str]:
        calls = self.kernels.launches_in(self.fn)
        calls += [c for c, callee in self.kernels.calls_in(self.fn) if callee in self.kernels.launchers]
        return {n.id for c in calls for a in [*c.args, *(k.value for k in c.keywords)] for n in _names(a)}

    # -- the check --------------------------------------------------------------------------------
    def check_returns(self) -> Iterator[Violation]:
        returns = [n for n in ast.walk(self.fn) if isinstance(n, ast.Return) and n.value is not None]
        if not returns:
            return
        last = max(returns, key=lambda r: r.lineno)
        assert last.value is not None
        elements = last.value.elts if isinstance(last.value, ast.Tuple) else [last.value]
        for element in elements:
            if isinstance(element, ast.Constant):
                continue
            violation = self.check_element(element, last.lineno)
            if violation is not None:
                yield violation

    def check_element(self, element: ast.expr, line: int) -> Violation | None:
        helper = self._helper(element)
        written = self.written_expr(element, set())
        if helper is not None:  # what a host helper returns is judged in the helper, its arguments here
            found = next(helper.check_returns(), None)
            return None if found is None or (found.rule == "dead-launch" and written) else found
        trip = self._round_trip(element, set())
        if trip is not None and not (written and self._view_root(element) is not None):
            return Violation("host-compute", trip.lineno, f"{self.fn.name}() returns data computed on the host "
                             f"({ast.unparse(trip)[:60]}), not by a kernel")  # fmt: skip
        if written:
            return None
        return Violation("dead-launch", line, f"{self.fn.name}() returns {ast.unparse(element)[:60]}, which no "
                         "kernel launch writes (the kernels' results are never returned)")  # fmt: skip

    def written(self, name: str, seen: set[str]) -> bool:
        if self._find(name) in self.touched:
            return True  # an input launched on may be written in place (the comparison of inputs judges that)
        if name in seen:
            return False
        seen.add(name)
        return any(self.written_expr(v, seen) for v in self.values.get(name, []))

    def written_expr(self, node: ast.expr, seen: set[str]) -> bool:
        root = self._view_root(node)
        if root is not None:
            return self.written(root, seen)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.written_expr(e, seen) for e in node.elts)
        if isinstance(node, ast.Call) and self.kernels.callee(node) in self.kernels.launchers:
            return True
        helper = self._helper(node)
        if helper is not None and next(helper.check_returns(), None) is None:
            return True
        # Inputs are read by kernels: `x * 2` or `torch.stack([x])` is host compute even if x went to a kernel.
        return any(self._find(n.id) not in self.input_classes and self.written(n.id, seen) for n in _names(node))

    def _helper(self, node: ast.expr) -> _Scope | None:
        """The scope of a host helper (not a launcher) this expression calls, within the depth limit."""
        callee = self.kernels.callee(node) if isinstance(node, ast.Call) else None
        if callee is None or callee in self.kernels.launchers or self.depth >= _MAX_DEPTH:
            return None
        return _Scope(self.names, self.kernels, self.kernels.functions[callee], self.depth + 1)

    def _round_trip(self, node: ast.expr, seen: set[str]) -> ast.expr | None:
        """A `.tolist()`, `.numpy()` or `torch.tensor(data)` the value is made from, through assignments of
        this function but not through the shape arguments of allocations."""
        if isinstance(node, ast.Call):
            if self._is_round_trip(node):
                return node
            if _last_attr(node.func) in _ALLOCATIONS:
                return None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                found = self._round_trip(child, seen)
                if found is not None:
                    return found
        if isinstance(node, ast.Name) and node.id not in seen:
            seen.add(node.id)
            for value in self.values.get(node.id, []):
                found = self._round_trip(value, seen)
                if found is not None:
                    return found
        return None

    def _is_round_trip(self, call: ast.Call) -> bool:
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("tolist", "numpy") and not call.args:
            return True
        dotted = self.names.resolve(call.func) or ""
        return dotted in TENSORS_FROM_DATA and bool(call.args) and not _is_literal(call.args[0])


def _assignments(node: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, ast.AugAssign):
        return [(node.target, node.value)]
    return []


def _bind(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) else []
        for i, t in enumerate(target.elts):
            yield from _bind(t, parts[i] if len(parts) == len(target.elts) else value)


def _names(node: ast.AST) -> Iterator[ast.Name]:
    return (n for n in ast.walk(node) if isinstance(n, ast.Name))


def _last_attr(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True
