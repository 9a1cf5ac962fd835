"""Static checks on a solution's source: it must launch a real Triton kernel and may not reach for
the reference, library kernels, fallbacks, concurrency, introspection, side streams or patches.

Names are resolved through the module's imports (`import torch.nn.functional as F` makes `F.relu`
read as `torch.nn.functional.relu`), so an alias is no way around a rule. What a static check cannot
see (getattr with a computed string, say) the runtime guard catches while the solution runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from workbench.harness.result import StaticResult, Violation

# Calls that hand the work to cuBLAS/cuDNN or a compiler instead of a Triton kernel.
DEFAULT_FORBIDDEN_CALLS = (
    "torch.matmul", "torch.mm", "torch.bmm", "torch.addmm", "torch.addbmm", "torch.baddbmm", "torch.addmv",
    "torch.addr", "torch.mv", "torch.dot", "torch.vdot", "torch.inner", "torch.outer", "torch.ger",
    "torch.einsum", "torch.tensordot", "torch.chain_matmul", "torch.kron", "torch.cdist", "torch.linalg",
    "torch.conv1d", "torch.conv2d", "torch.conv3d", "torch.conv_transpose1d", "torch.conv_transpose2d",
    "torch.conv_transpose3d", "torch.cudnn_convolution", "torch._scaled_mm", "torch.nn", "torch.nn.functional",
    "torch.compile",
    "torch.jit", "torch.ops", "torch._C", "torch._dynamo", "torch._inductor", "torch.library",
    "torch.backends", "torch.utils.cpp_extension", "torch.utils.dlpack", "torch.overrides",
    "torch.utils._python_dispatch", "torch.Tensor.matmul", "torch.Tensor.mm", "torch.Tensor.bmm",
    "torch.Tensor.addmm", "torch.Tensor.baddbmm", "torch.Tensor.mv", "torch.Tensor.dot", "torch.Tensor.inner",
    "torch.Tensor.outer", "torch.Tensor.__matmul__", "torch.Tensor.__rmatmul__",
)  # fmt: skip

KERNEL_LIBRARIES = (
    "flash_attn", "xformers", "apex", "liger_kernel", "cupy", "numba", "tilelang", "cutlass", "cuda", "pycuda",
    "transformer_engine", "bitsandbytes", "deep_gemm", "flashinfer", "vllm", "sglang", "torchao", "jax",
    "tensorflow", "numpy", "scipy", "thunder", "triton_kernels", "torch_geometric", "torch_scatter",
)  # fmt: skip

CONCURRENCY = (
    "threading", "_thread", "multiprocessing", "concurrent", "subprocess", "asyncio", "pty", "socket",
    "os.system", "os.popen", "os.fork", "os.forkpty", "os.execv", "os.execve", "os.execvp", "os.execl",
    "os.spawnv", "os.spawnl", "os.posix_spawn", "os.posix_spawnp", "os.kill",
)  # fmt: skip

INTROSPECTION = (
    "inspect", "gc", "ctypes", "cffi", "importlib", "builtins", "sys._getframe", "sys.settrace",
    "sys.setprofile", "sys.modules", "sys.meta_path", "types.FrameType", "eval", "exec", "compile",
    "__import__", "globals", "runpy", "marshal", "pickle",
)  # fmt: skip

SIDE_STREAMS = (
    "torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.cuda.set_stream",
    "torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.graphs", "torch.cuda.Event", "torch.Stream",
    "torch.Event", "torch.cuda.streams", "torch.cuda.StreamContext",
)  # fmt: skip

REFERENCE_MODULES = ("reference",)
_BUILTIN_NAMES = {"eval", "exec", "compile", "__import__", "globals"}
_MATMUL_METHODS = {"matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "dot", "inner", "outer", "__matmul__"}


def check_source(source: str, forbidden_calls: Iterable[str] = ()) -> StaticResult:
    """Run every static rule over a solution's source; violations carry rule names and line numbers."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return StaticResult(ok=False, violations=[Violation("syntax", exc.lineno or 0, f"syntax error: {exc.msg}")])
    checker = _Checker(tree, tuple(forbidden_calls))
    violations = sorted(checker.run(), key=lambda v: (v.line, v.rule))
    return StaticResult(ok=not violations, violations=violations)


def _matches(name: str, prefixes: Iterable[str]) -> str | None:
    for prefix in prefixes:
        if name == prefix or name.startswith(prefix + "."):
            return prefix
    return None


class _Checker:
    def __init__(self, tree: ast.Module, task_forbidden: tuple[str, ...]) -> None:
        self.tree = tree
        self.forbidden = DEFAULT_FORBIDDEN_CALLS + task_forbidden
        self.forbidden_methods = _MATMUL_METHODS | {
            n.rsplit(".", 1)[1] for n in self.forbidden if n.startswith("torch.Tensor.")
        }
        self.aliases: dict[str, str] = {}  # local name -> dotted module path it stands for
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.kernels = {name for name, fn in self.functions.items() if _is_triton_kernel(fn)}
        self.kernel_lines = {
            line for name in self.kernels for line in range(self.functions[name].lineno, _end(self.functions[name]) + 1)
        }

    def run(self) -> Iterator[Violation]:
        yield from self._imports()
        yield from self._calls_and_names()
        yield from self._patches()
        yield from self._kernel_launch()
        yield from self._fallbacks()
        yield from self._gpu_compile_errors()

    # -- imports -------------------------------------------------------------------------------
    def _imports(self) -> Iterator[Violation]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.aliases[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
                    yield from self._module_rules(alias.name, node.lineno, f"import {alias.name}")
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    yield Violation("calls-reference" if module in REFERENCE_MODULES else "introspection", node.lineno,
                                    "relative imports are not allowed in a solution")  # fmt: skip
                    continue
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    self.aliases[alias.asname or alias.name] = full
                    yield from self._module_rules(full, node.lineno, f"from {module} import {alias.name}")

    def _module_rules(self, dotted: str, line: int, what: str) -> Iterator[Violation]:
        if _matches(dotted, REFERENCE_MODULES):
            yield Violation("calls-reference", line, f"{what}: a solution may not use the task's reference")
        elif _matches(dotted, KERNEL_LIBRARIES):
            yield Violation("kernel-library", line, f"{what}: other kernel libraries and numpy are not allowed")
        elif _matches(dotted, CONCURRENCY):
            yield Violation("concurrency", line, f"{what}: threads, processes and subprocesses are not allowed")
        elif _matches(dotted, INTROSPECTION):
            yield Violation("introspection", line, f"{what}: introspection and dynamic code are not allowed")
        elif _matches(dotted, SIDE_STREAMS):
            yield Violation("side-stream", line, f"{what}: side streams, graphs and events are not allowed")
        elif _matches(dotted, self.forbidden):
            yield Violation("forbidden-call", line, f"{what}: forbidden in this task")

    # -- calls, attribute chains, operators ----------------------------------------------------
    def _resolve(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for through the imports, e.g. F.softmax ->
        torch.nn.functional.softmax; None when it does not start at an imported or builtin name."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id)
        if base is None:
            base = node.id if node.id in _BUILTIN_NAMES and not parts else None
        if base is None:
            return None
        return ".".join([base, *reversed(parts)])

    def _calls_and_names(self) -> Iterator[Violation]:
        seen: set[tuple[int, str]] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Attribute, ast.Name)) and not isinstance(node.ctx, ast.Store):
                dotted = self._resolve(node)
                if dotted is not None and ("." in dotted or dotted in _BUILTIN_NAMES):
                    for violation in self._module_rules(dotted, node.lineno, dotted):
                        if (node.lineno, violation.rule) not in seen:
                            seen.add((node.lineno, violation.rule))
                            yield violation
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if self._resolve(node.func) is None and node.func.attr in self.forbidden_methods:
                    if node.lineno not in self.kernel_lines:
                        yield Violation("forbidden-call", node.lineno, f".{node.func.attr}() is forbidden in this task")
            if isinstance(node, ast.Name) and node.id == "reference" and isinstance(node.ctx, ast.Load):
                yield Violation("calls-reference", node.lineno, "a solution may not use the task's reference")
            is_matmul = isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult)
            if is_matmul and isinstance(node, ast.expr | ast.stmt) and node.lineno not in self.kernel_lines:
                yield Violation("matmul-operator", node.lineno, "`@` outside a Triton kernel runs cuBLAS")

    def _patches(self) -> Iterator[Violation]:
        for node in ast.walk(self.tree):
            targets: list[ast.expr] = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and self._resolve(target.value):
                    assert isinstance(node, ast.stmt)
                    message = f"assigns to {self._resolve(target)}: a solution may not patch imported modules"
                    yield Violation("timer-patch", node.lineno, message)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
            ):
                if node.args and self._resolve(node.args[0]):
                    yield Violation("timer-patch", node.lineno, f"{node.func.id}() on an imported module")

    # -- kernels and launches ------------------------------------------------------------------
    def _launches_in(self, fn: ast.AST) -> list[ast.Call]:
        return [
            n for n in ast.walk(fn)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)
            and isinstance(n.func.value, ast.Name) and n.func.value.id in self.kernels
        ]  # fmt: skip

    def _reachable_from(self, name: str) -> set[str]:
        reached, frontier = {name}, [name]
        while frontier:
            for node in ast.walk(self.functions[frontier.pop()]):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    callee = node.func.id
                    if callee in self.functions and callee not in reached and callee not in self.kernels:
                        reached.add(callee)
                        frontier.append(callee)
        return reached

    def _kernel_launch(self) -> Iterator[Violation]:
        if "solution" not in self.functions:
            yield Violation("no-triton-kernel", 1, "no top-level function `solution` is defined")
            return
        if not self.kernels:
            yield Violation("no-triton-kernel", 1, "no @triton.jit kernel is defined")
            return
        if not any(self._launches_in(self.functions[f]) for f in self._reachable_from("solution")):
            yield Violation("no-triton-kernel", self.functions["solution"].lineno,
                            "solution() never launches a @triton.jit kernel (kernel[grid](...))")  # fmt: skip

    def _fallbacks(self) -> Iterator[Violation]:
        launching = {f for f in self.functions if f not in self.kernels and self._launches_in(self.functions[f])}
        for node in ast.walk(self.tree):
            if not isinstance(node, (ast.Try, ast.TryStar)) or not node.handlers:
                continue
            body = ast.Module(body=node.body, type_ignores=[])
            calls_launcher = any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in launching
                for n in ast.walk(body)
            )
            if self._launches_in(body) or calls_launcher:
                yield Violation("try-fallback", node.lineno, "try/except around a kernel launch (a hidden fallback)")

    # -- what the CPU interpreter runs but Triton's GPU compiler refuses --------------------------
    def _gpu_compile_errors(self) -> Iterator[Violation]:
        """Kernels run as plain Python under the interpreter, so two things it accepts fail to compile on a
        GPU; flagged here so an interpret-mode eval does not pass a kernel the GPU would reject."""
        plain_globals = {}
        for node in self.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                if not _is_constexpr_call(node.value):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    plain_globals.update({t.id: node.lineno for t in targets if isinstance(t, ast.Name)})
        for name in sorted(self.kernels):
            fn = self.functions[name]
            local = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
            local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            reported = set()
            for n in ast.walk(fn):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in plain_globals:
                    if n.id not in local and n.id not in reported:
                        reported.add(n.id)
                        yield Violation("non-constexpr-global", n.lineno,
                                        f"kernel {name} reads the module global {n.id} (line {plain_globals[n.id]}), "
                                        f"which is not a constexpr: the GPU compiler refuses it; write "
                                        f"{n.id} = tl.constexpr(...)")  # fmt: skip
            in_loops = {
                n.lineno: n
                for loop in ast.walk(fn)
                if isinstance(loop, (ast.For, ast.While))
                for n in ast.walk(ast.Module(body=loop.body, type_ignores=[]))
                if isinstance(n, ast.AnnAssign) and "constexpr" in ast.unparse(n.annotation)
            }
            for line, n in sorted(in_loops.items()):
                yield Violation("constexpr-in-loop", line,
                                f"kernel {name} declares {ast.unparse(n.target)}: tl.constexpr inside a loop; "
                                "the GPU compiler refuses to redefine a constexpr: drop the annotation")  # fmt: skip


def _is_constexpr_call(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and ast.unparse(value.func).endswith("constexpr")


def _is_triton_kernel(fn: ast.FunctionDef) -> bool:
    for decorator in fn.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "jit":
            return True
    return False


def _end(node: ast.FunctionDef) -> int:
    return node.end_lineno or node.lineno
