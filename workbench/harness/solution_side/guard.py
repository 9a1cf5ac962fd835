"""The runtime guard: while solution() runs, every torch op outside Triton kernels is checked.

Two layers. A TorchFunctionMode names forbidden entry points (torch.matmul, F.*, the reference)
however they were reached: an alias, getattr with a string, a method. Under it a TorchDispatchMode
sees every aten op that actually runs: only allocation, views, copies and casts pass (plus the ops a
task allows); anything else means the solution computed outside Triton. The dispatch layer also
poisons every fresh allocation with a NaN payload, so an element the kernel never writes is caught.

Triton's own launch path (the interpreter copies tensors through torch; the autotuner benchmarks)
runs with the guard suspended: see `suspended()` and workbench.harness.solution_side.triton_patches.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from .poison import poison_

# aten ops that only allocate, view, copy or cast: the glue a Triton host wrapper needs.
ALLOWED_OPS = frozenset(
    """
    empty empty_like empty_strided new_empty new_empty_strided zeros zeros_like new_zeros ones ones_like
    new_ones full full_like new_full arange fill_ zero_ scalar_tensor lift_fresh lift_fresh_copy
    view _unsafe_view _reshape_alias reshape as_strided t transpose permute expand unsqueeze squeeze select
    slice split split_with_sizes unbind alias detach narrow unfold view_as_real view_as_complex
    contiguous clone copy_ _to_copy _copy_from _copy_from_and_resize to resize_ set_
    _local_scalar_dense is_same_size sym_size sym_stride sym_numel sym_storage_offset
    record_stream _has_compatible_shallow_copy_type is_pinned
    """.split()
)
POISONED_OPS = frozenset("empty empty_like empty_strided new_empty new_empty_strided".split())

_state = threading.local()


class ForbiddenCall(RuntimeError):
    """Raised inside solution() when it reaches a forbidden call or a torch op outside Triton."""


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """Let trusted code (Triton's launcher, the harness) run torch ops inside a guarded call."""
    depth = getattr(_state, "suspended", 0)
    _state.suspended = depth + 1
    try:
        yield
    finally:
        _state.suspended = depth


def _is_suspended() -> bool:
    return getattr(_state, "suspended", 0) > 0


def resolve_callables(dotted_names: Iterable[str]) -> dict[Any, str]:
    """Map each importable callable under the dotted names (a function or a whole namespace such as
    torch.nn.functional) to its name; names that do not exist in this torch are skipped."""
    import importlib

    found: dict[Any, str] = {}
    for dotted in dotted_names:
        obj: Any = None
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                obj = None
            break
        if obj is None:
            continue
        if isinstance(obj, type(torch)):  # a module: every public callable in it
            for attr in dir(obj):
                member = getattr(obj, attr, None)
                if callable(member) and not attr.startswith("_") and not isinstance(member, type):
                    found.setdefault(member, f"{dotted}.{attr}")
        elif callable(obj):
            found.setdefault(obj, dotted)
    return found


class _ForbiddenFunctions(TorchFunctionMode):
    def __init__(self, guard: SolutionGuard) -> None:
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if not _is_suspended():
            name = self.guard.forbidden.get(func)
            if name is not None:
                self.guard.record(f"forbidden call {name}")
        return func(*args, **(kwargs or {}))


class _AtenOps(TorchDispatchMode):
    def __init__(self, guard: SolutionGuard) -> None:
        super().__init__()
        self.guard = guard

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if _is_suspended():
            return func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name not in ALLOWED_OPS and f"aten.{name}" not in self.guard.allowed_ops:
            self.guard.record(f"torch op aten.{name} ran in solution(); compute must happen in Triton kernels")
        out = func(*args, **(kwargs or {}))
        if name in POISONED_OPS and self.guard.poison:
            poison_(out)
        return out


class SolutionGuard:
    """Context manager around one call of solution(). Violations are recorded even when the solution
    swallows the exception, and the first one is raised again when the block exits."""

    def __init__(self, forbidden: dict[Any, str], allowed_ops: Iterable[str], poison: bool = True) -> None:
        self.forbidden = forbidden
        self.allowed_ops = frozenset(allowed_ops)
        self.poison = poison
        self.violations: list[str] = []
        self._stack = contextlib.ExitStack()

    def record(self, message: str) -> None:
        self.violations.append(message)
        raise ForbiddenCall(message)

    def __enter__(self) -> SolutionGuard:
        self.violations.clear()
        self._stack.enter_context(_AtenOps(self))
        self._stack.enter_context(_ForbiddenFunctions(self))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        if self.violations and not isinstance(exc[1], ForbiddenCall):
            raise ForbiddenCall(self.violations[0])


def raising(name: str) -> Callable[..., Any]:
    """A stand-in for the task's reference inside the solution's process."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ForbiddenCall(f"the solution called {name}")

    return refuse
