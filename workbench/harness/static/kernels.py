"""Which functions of a solution are Triton kernels, where they are launched, and which host helpers launch them.

Production code makes kernels in more ways than `@triton.jit`: `k = triton.jit(f)`,
`k = triton.heuristics({...})(triton.jit(f))`, dispatch by `k = k16 if fp16 else k32` or a dict of kernels,
launchers wrapped by `functools.partial` or `lru_cache`. Each is followed here so that no real kernel is
reported as missing."""

from __future__ import annotations

import ast

from workbench.harness.static.names import Names


class Kernels:
    def __init__(self, tree: ast.Module, names: Names) -> None:
        self.names = names
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.jitted = {name: fn for name, fn in self.functions.items() if _decorated_jit(fn)}
        self.kernels: set[str] = set(self.jitted)  # names that launch as kernel[grid](...)
        self.containers: set[str] = set()  # names bound to a dict, list or tuple of kernels
        self.function_aliases: dict[str, str] = {}  # `run = functools.partial(_launch, ...)` -> run: _launch
        assignments = [
            (t.id, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name)
        ]  # fmt: skip
        for _ in range(3):  # aliases of aliases, in any order of definition
            for name, value in assignments:
                self._bind(name, value)
        self.kernel_lines = {line for fn in self.jitted.values() for line in range(fn.lineno, _end(fn) + 1)}
        self.launchers = self._launchers()

    def _bind(self, name: str, value: ast.expr) -> None:
        has_jit, inner = self._unwrap(value)
        if inner in self.kernels or has_jit:
            self.kernels.add(name)
            if has_jit and inner in self.functions and inner not in self.jitted:
                self.jitted[inner] = self.functions[inner]
        elif self.is_kernel(value):
            self.kernels.add(name)
        elif isinstance(value, (ast.Dict, ast.List, ast.Tuple)):
            members = value.values if isinstance(value, ast.Dict) else value.elts
            if members and all(self.is_kernel(m) for m in members):
                self.containers.add(name)
        elif inner in self.functions:
            self.function_aliases[name] = inner

    def _unwrap(self, value: ast.expr) -> tuple[bool, str | None]:
        """Through calls of decorators applied by hand (`triton.jit(f)`, `triton.heuristics(h)(f)`,
        `functools.partial(f, ...)`): whether one of them is a jit, and the function at the bottom."""
        has_jit = False
        while isinstance(value, ast.Call) and value.args:
            factory = value.func.func if isinstance(value.func, ast.Call) else value.func
            has_jit |= _last_name(factory) == "jit"
            value = value.args[0]
        return has_jit, value.id if isinstance(value, ast.Name) else None

    def is_kernel(self, node: ast.expr) -> bool:
        """A kernel, a choice between kernels (`a if c else b`) or an item of a container of kernels."""
        if isinstance(node, ast.Name):
            return node.id in self.kernels
        if isinstance(node, ast.IfExp):
            return self.is_kernel(node.body) and self.is_kernel(node.orelse)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return node.value.id in self.containers
        return False

    def launches_in(self, fn: ast.AST) -> list[ast.Call]:
        return [
            n for n in ast.walk(fn)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) and self.is_kernel(n.func.value)
        ]  # fmt: skip

    def callee(self, call: ast.Call) -> str | None:
        """The host function of this module a call runs (through partial/lru_cache aliases), if any."""
        if not isinstance(call.func, ast.Name):
            return None
        name = self.function_aliases.get(call.func.id, call.func.id)
        return name if name in self.functions and name not in self.jitted else None

    def calls_in(self, fn: ast.AST) -> list[tuple[ast.Call, str]]:
        found = [(n, self.callee(n)) for n in ast.walk(fn) if isinstance(n, ast.Call)]
        return [(n, name) for n, name in found if name is not None]

    def _launchers(self) -> set[str]:
        """Host functions that launch a kernel themselves or through other host functions."""
        launching = {name for name, fn in self.functions.items() if name not in self.jitted and self.launches_in(fn)}
        changed = True
        while changed:
            changed = False
            for name, fn in self.functions.items():
                if name not in launching and name not in self.jitted:
                    if any(callee in launching for _, callee in self.calls_in(fn)):
                        launching.add(name)
                        changed = True
        return launching

    def plain_globals(self, tree: ast.Module) -> dict[str, int]:
        """Module globals a GPU-compiled kernel may not read: not constexpr, not a triton.language object
        (dtypes and builtins such as `ACC = tl.float32`, `_max = tl.maximum`), not a kernel."""
        found = {}
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                if _is_constexpr_call(node.value) or self._is_language_object(node.value):
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id not in self.kernels and t.id not in self.containers:
                        found[t.id] = node.lineno
        return found

    def _is_language_object(self, value: ast.expr) -> bool:
        """`tl.float32`, `tl.maximum`, `getattr(tl, name)`: objects the GPU compiler lets a kernel read."""
        if isinstance(value, ast.Call) and self.names.builtin(value.func) == "getattr" and value.args:
            value = value.args[0]
        return (self.names.resolve(value) or "").startswith("triton.language")


def _decorated_jit(fn: ast.FunctionDef) -> bool:
    return any(_last_name(d.func if isinstance(d, ast.Call) else d) == "jit" for d in fn.decorator_list)


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _is_constexpr_call(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and ast.unparse(value.func).endswith("constexpr")


def _end(node: ast.FunctionDef) -> int:
    return node.end_lineno or node.lineno
