"""The static rules, one method per family; each finding is a Violation with a rule name and a line."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from workbench.harness.result import Violation
from workbench.harness.static import lists
from workbench.harness.static.dataflow import check_outputs
from workbench.harness.static.kernels import Kernels
from workbench.harness.static.names import Names

_MODULE_RULES = (
    (lists.REFERENCE_MODULES, "calls-reference", "a solution may not use the task's reference"),
    (lists.KERNEL_LIBRARIES, "kernel-library", "other kernel libraries and numpy are not allowed"),
    (lists.CONCURRENCY, "concurrency", "threads, processes and subprocesses are not allowed"),
    (lists.INTROSPECTION, "introspection", "introspection and dynamic code are not allowed"),
    (lists.SIDE_STREAMS, "side-stream", "side streams, graphs and events are not allowed"),
    (lists.PROCESS_CONTROL, "process-control", "exiting, signals, exit hooks and raw descriptors are not allowed"),
    (lists.HOST_ROUND_TRIPS, "host-compute", "numpy round trips are not allowed"),
)
_TENSOR_SUBCLASS_BASES = ("torch.Tensor", "torch.nn.Parameter", "torch._C", "torch.overrides", "torch.utils")


def matches(name: str, prefixes: Iterable[str]) -> str | None:
    for prefix in prefixes:
        if name == prefix or name.startswith(prefix + "."):
            return prefix
    return None


class Checker:
    def __init__(self, tree: ast.Module, task_forbidden: tuple[str, ...]) -> None:
        self.tree = tree
        self.forbidden = lists.DEFAULT_FORBIDDEN_CALLS + task_forbidden
        self.forbidden_methods = lists.MATMUL_METHODS | {
            n.rsplit(".", 1)[1] for n in self.forbidden if n.startswith("torch.Tensor.")
        }
        self.names = Names(tree)
        self.kernels = Kernels(tree, self.names)

    def run(self) -> Iterator[Violation]:
        yield from self._imports()
        yield from self._names_and_attributes()
        yield from self._calls_and_operators()
        yield from self._dynamic_attributes()
        yield from self._patches()
        yield from self._classes_and_raises()
        yield from self._kernel_launch()
        yield from self._fallbacks()
        yield from check_outputs(self.names, self.kernels)
        yield from self._gpu_compile_errors()

    def module_rules(self, dotted: str, line: int, what: str) -> Iterator[Violation]:
        for prefixes, rule, why in _MODULE_RULES:
            if matches(dotted, prefixes):
                yield Violation(rule, line, f"{what}: {why}")
                return
        if matches(dotted, self.forbidden):
            yield Violation("forbidden-call", line, f"{what}: forbidden in this task")
        elif dotted.startswith("torch.") and any(_private(part) for part in dotted.split(".")[1:]):
            yield Violation("forbidden-call", line, f"{what}: torch's private API is not allowed")

    # -- imports, names, attribute chains ----------------------------------------------------------
    def _imports(self) -> Iterator[Violation]:
        for imported in self.names.imports:
            if imported.relative:
                rule = (
                    "calls-reference" if imported.dotted.split(".")[0] in lists.REFERENCE_MODULES else "introspection"
                )
                yield Violation(rule, imported.line, f"{imported.what}: relative imports are not allowed")
            elif imported.dotted.endswith(".*"):
                yield Violation("star-import", imported.line, f"{imported.what}: a star import hides what is used")
            else:
                yield from self.module_rules(imported.dotted, imported.line, imported.what)

    def _names_and_attributes(self) -> Iterator[Violation]:
        seen: set[tuple[int, str]] = set()
        for node in ast.walk(self.tree):
            found: list[Violation] = []
            if isinstance(node, ast.Attribute) and node.attr in lists.INTROSPECTIVE_ATTRIBUTES:
                found.append(Violation("introspection", node.lineno, f".{node.attr}: introspection is not allowed"))
            if isinstance(node, (ast.Attribute, ast.Name, ast.Call, ast.Subscript)):
                loaded = not isinstance(getattr(node, "ctx", None), ast.Store)
                dotted = self.names.resolve(node) if loaded else None
                if dotted is not None and ("." in dotted or dotted in lists.RULE_BUILTINS):
                    found.extend(self.module_rules(dotted, node.lineno, dotted))
            for violation in found:
                if (violation.line, violation.rule) not in seen:
                    seen.add((violation.line, violation.rule))
                    yield violation

    def _calls_and_operators(self) -> Iterator[Violation]:
        host = self.kernels.kernel_lines
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.lineno not in host:
                if self.names.resolve(node.func) is None and node.func.attr in self.forbidden_methods:
                    yield Violation("forbidden-call", node.lineno, f".{node.func.attr}() is forbidden in this task")
                if node.func.attr == "numpy" and not node.args:
                    yield Violation("host-compute", node.lineno, ".numpy(): numpy round trips are not allowed")
            if isinstance(node, ast.Name) and node.id == "reference" and isinstance(node.ctx, ast.Load):
                yield Violation("calls-reference", node.lineno, "a solution may not use the task's reference")
            is_matmul = isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult)
            if is_matmul and isinstance(node, ast.expr | ast.stmt) and node.lineno not in host:
                yield Violation("matmul-operator", node.lineno, "`@` outside a Triton kernel runs cuBLAS")

    def _dynamic_attributes(self) -> Iterator[Violation]:
        """getattr/setattr/delattr with a computed name: the one way a static rule cannot see what is reached.
        Allowed only as getattr on triton.language and its extras (`getattr(tl, dtype_name)` in a config)."""
        called = {id(n.func) for n in ast.walk(self.tree) if isinstance(n, ast.Call)}
        aliased = {id(n.value) for n in ast.walk(self.tree) if isinstance(n, ast.Assign)}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and self.names.is_dynamic_attribute_call(node):
                base = self.names.resolve(node.args[0]) if node.args else None
                if self.names.builtin(node.func) == "getattr" and (base or "").startswith("triton.language"):
                    continue
                yield Violation("dynamic-attribute", node.lineno,
                                f"{ast.unparse(node)[:60]}: an attribute reached by a computed name")  # fmt: skip
            elif isinstance(node, ast.Name) and id(node) not in called | aliased:
                if self.names.builtin(node) in lists.DYNAMIC_ATTRIBUTE_BUILTINS and isinstance(node.ctx, ast.Load):
                    yield Violation("dynamic-attribute", node.lineno, f"{node.id} passed as a value")

    def _patches(self) -> Iterator[Violation]:
        for node in ast.walk(self.tree):
            targets: list[ast.expr] = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                if isinstance(target, (ast.Attribute, ast.Subscript)):
                    owner = self.names.resolve(target.value)
                    if owner is not None:
                        assert isinstance(node, ast.stmt)
                        yield self._patch(owner, node.lineno, f"assigns to {ast.unparse(target)[:60]}")
            if isinstance(node, ast.Call) and self.names.builtin(node.func) in ("setattr", "delattr") and node.args:
                owner = self.names.resolve(node.args[0])
                if owner is not None:
                    yield self._patch(owner, node.lineno, f"{self.names.builtin(node.func)}() on {owner}")

    def _patch(self, owner: str, line: int, what: str) -> Violation:
        rule = "timer-patch" if matches(owner, lists.TIMERS) else "module-patch"
        return Violation(rule, line, f"{what}: a solution may not patch imported modules")

    def _classes_and_raises(self) -> Iterator[Violation]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                for base in node.bases:
                    if matches(self.names.resolve(base) or "", _TENSOR_SUBCLASS_BASES):
                        yield Violation("tensor-subclass", node.lineno, f"class {node.name} subclasses a tensor")
            elif isinstance(node, ast.FunctionDef) and node.name in ("__torch_function__", "__torch_dispatch__"):
                yield Violation("tensor-subclass", node.lineno, f"defines {node.name}")
            elif isinstance(node, ast.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if self.names.builtin(raised) in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
                    yield Violation("process-control", node.lineno, "raising SystemExit ends the process")

    # -- kernels and launches -------------------------------------------------------------------------
    def _kernel_launch(self) -> Iterator[Violation]:
        functions = self.kernels.functions
        if "solution" not in functions:
            yield Violation("no-triton-kernel", 1, "no top-level function `solution` is defined")
        elif not self.kernels.jitted:
            yield Violation("no-triton-kernel", 1, "no @triton.jit kernel is defined")
        elif "solution" not in self.kernels.launchers:
            yield Violation("no-triton-kernel", functions["solution"].lineno,
                            "solution() never launches a @triton.jit kernel (kernel[grid](...))")  # fmt: skip

    def _fallbacks(self) -> Iterator[Violation]:
        for node in ast.walk(self.tree):
            if not isinstance(node, (ast.Try, ast.TryStar)) or not node.handlers:
                continue
            body = ast.Module(body=node.body, type_ignores=[])
            calls_launcher = any(callee in self.kernels.launchers for _, callee in self.kernels.calls_in(body))
            if self.kernels.launches_in(body) or calls_launcher:
                yield Violation("try-fallback", node.lineno, "try/except around a kernel launch (a hidden fallback)")

    # -- what the CPU interpreter runs but Triton's GPU compiler refuses ----------------------------
    def _gpu_compile_errors(self) -> Iterator[Violation]:
        """Kernels run as plain Python under the interpreter, so two things it accepts fail to compile on a
        GPU; flagged here so an interpret-mode eval does not pass a kernel the GPU would reject."""
        plain_globals = self.kernels.plain_globals(self.tree)
        for name, fn in sorted(self.kernels.jitted.items()):
            body = ast.Module(body=fn.body, type_ignores=[])  # defaults and decorators run on the host
            local = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
            local |= {n.id for n in ast.walk(body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            reported = set()
            for n in ast.walk(body):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in plain_globals:
                    if n.id not in local and n.id not in reported:
                        reported.add(n.id)
                        yield Violation("non-constexpr-global", n.lineno,
                                        f"kernel {name} reads the module global {n.id} (line {plain_globals[n.id]}), "
                                        f"which is not a constexpr: the GPU compiler refuses it; write "
                                        f"{n.id} = tl.constexpr(...)")  # fmt: skip
            in_loops = {
                n.lineno: n
                for loop in ast.walk(body)
                if isinstance(loop, (ast.For, ast.While))
                for n in ast.walk(ast.Module(body=loop.body, type_ignores=[]))
                if isinstance(n, ast.AnnAssign) and "constexpr" in ast.unparse(n.annotation)
            }
            for line, n in sorted(in_loops.items()):
                yield Violation("constexpr-in-loop", line,
                                f"kernel {name} declares {ast.unparse(n.target)}: tl.constexpr inside a loop; "
                                "the GPU compiler refuses to redefine a constexpr: drop the annotation")  # fmt: skip


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
