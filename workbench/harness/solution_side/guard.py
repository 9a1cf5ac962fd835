"""The runtime guard: while solution() runs, every torch op outside Triton kernels is checked.

Two layers. A TorchFunctionMode names forbidden entry points (torch.matmul, F.*, the reference)
however they were reached: an alias, getattr with a string, a method; it also counts the task data that
leaves for Python or numpy (`numpy()`, `tolist()`, `.item()`, DLPack, a storage's bytes, a copy from the
GPU to the host) against a budget per call of solution() that a schedule's few hundred scalars fit in and a
workload's data does not, so no round trip through host code can compute the answer (what comes back in,
`torch.tensor(list)`, can then only be a function of shapes and those scalars: a tile table).
Under it a TorchDispatchMode sees every op that actually runs: only aten allocation,
views, copies and casts pass (plus the ops a task allows; an op of another namespace with an allowed
name does not); anything else means the solution computed outside Triton. The dispatch layer also
poisons every fresh allocation with a NaN payload, so an element the kernel never writes is caught.

Triton's own launch path (the interpreter copies tensors through torch; the autotuner benchmarks)
runs with the guard suspended (`suspended()`, from triton_patches.py, which also counts launches with
`note_launch()`); user hooks inside it run guarded again (`unsuspended()`). Only this package's code
may suspend the guard or count a launch. The guard's state is frozen, the torch entry points that pop
or disable modes refuse inside a call (mode_locks.py), and `verify_intact()` checks after each call
that the mode stacks, the guard's state and torch's timing classes are as the guard left them. Every
violation is also raised as an audit event, which the audit hook records where the solution cannot
erase it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from . import mode_locks
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

# Tensor elements one call of solution() may bring into Python or to the host, all ways together: a grouped GEMM's
# expert offsets (up to 255 experts), a count, grid sizes; never a workload's data (the inputs of every CI-sized and
# hidden workload are larger: tests/harness/test_guard.py checks it).
READ_BUDGET = 256
# Tensor methods that hand a tensor's values to Python or numpy (a storage's bytes, DLPack: numpy.from_dlpack).
_READS_OUT = frozenset({"numpy", "tolist", "__array__", "__dlpack__", "untyped_storage", "storage", "_typed_storage"})
# Copies whose source is on the GPU and destination on the host (counted against READ_BUDGET in CUDA mode).
_COPIES = frozenset({"_to_copy", "copy_", "_copy_from", "_copy_from_and_resize"})
GUARD_EVENT = "solution_side.guard.violation"  # the audit hook records these (audit.py)
_HERE = os.path.dirname(os.path.realpath(__file__))

_state = threading.local()


class ForbiddenCall(RuntimeError):
    """Raised inside solution() when it reaches a forbidden call or a torch op outside Triton."""


def _report(message: str) -> None:
    sys.audit(GUARD_EVENT, message)  # a no-op without the audit hook; with it, a record nothing can erase


def _from_this_package(depth: int) -> bool:
    """Whether the code `depth` frames above the caller belongs to this package (the harness in the sandbox)."""
    try:
        filename = sys._getframe(depth + 1).f_code.co_filename
    except ValueError:
        return False
    return mode_locks.real_path(filename).startswith(_HERE + os.sep)


def forbid(message: str) -> None:
    """Refuse what the solution did inside a guarded call, recorded so that catching the exception hides nothing."""
    guard = getattr(_state, "active", None)
    if guard is not None:
        guard.record(message)
    _report(message)
    raise ForbiddenCall(message)


def _refuse_outside(what: str) -> None:
    message = f"the solution called the guard's {what}"
    guard = getattr(_state, "active", None)
    if guard is not None:
        guard.record(message)
    _report(message)
    raise ForbiddenCall(message)


class suspended:  # noqa: N801 - a context manager named like the function it replaced
    """Let trusted code (Triton's launcher, the harness) run torch ops inside a guarded call."""

    def __enter__(self) -> None:
        if not _from_this_package(1):
            _refuse_outside("suspended()")
        self._depth = getattr(_state, "suspended", 0)
        _state.suspended = self._depth + 1

    def __exit__(self, *exc: object) -> None:
        _state.suspended = self._depth


@contextlib.contextmanager
def unsuspended() -> Iterator[None]:
    """Guard again inside a suspended region: user code Triton calls back (autotune pre_hook/post_hook, a
    kernel body the interpreter runs as Python)."""
    depth = getattr(_state, "suspended", 0)
    _state.suspended = 0
    try:
        yield
    finally:
        _state.suspended = depth


def note_launch() -> None:
    """Count one Triton kernel launch for the guarded call in progress (called by triton_patches.py)."""
    if not _from_this_package(1):
        _refuse_outside("note_launch()")
    guard = getattr(_state, "active", None)
    if guard is not None:
        guard._count_launch()


def _refuse_unlock(what: str) -> None:
    guard = getattr(_state, "active", None)
    message = f"{what} inside solution(): the guard's modes must stay on"
    if guard is not None:
        guard.record(message)
    _report(message)
    raise ForbiddenCall(message)


def _is_suspended() -> bool:
    return getattr(_state, "suspended", 0) > 0


def _in_call() -> bool:
    return getattr(_state, "active", None) is not None and not _is_suspended()


def resolve_callables(dotted_names: Iterable[str]) -> dict[Any, str]:
    """Map each callable under the dotted names (a function or a whole namespace such as torch.nn.functional) to its
    name; names that do not exist in this torch are skipped. Only modules already imported are looked in: importing
    torch._dynamo or torch._inductor to list their functions costs seconds per eval, and a module nobody imported
    holds nothing the solution could call without importing it (which the static rules and the audit hook refuse)."""
    import sys

    found: dict[Any, str] = {}
    for dotted in dotted_names:
        obj: Any = None
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            obj = sys.modules.get(".".join(parts[:cut]))
            if obj is None:
                continue
            for attr in parts[cut:]:  # what is already there: a module's lazy __getattr__ would import it
                obj = vars(obj).get(attr) if isinstance(obj, type(torch)) else getattr(obj, attr, None)
            break
        if obj is None:
            continue
        if isinstance(obj, type(torch)):  # a module: every public callable in it
            for attr in dir(obj):
                member = vars(obj).get(attr)
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
            if any(t is not torch.Tensor for t in types):
                # A subclass's own __torch_function__ would run next, inside this handler, where this mode is off:
                # its Python could read task data (numpy(), a copy to the host) that no check here would see
                self.guard.record("a torch.Tensor subclass with its own hooks ran in solution(): only plain tensors")
            if self._check_round_trip(getattr(func, "__name__", ""), args, kwargs or {}):
                # `tolist()` of a GPU tensor copies it to the host first: the elements are counted here, once, and
                # not again as that copy (which counted 129 offsets as 258 and refused a grouped GEMM's schedule)
                self.guard.reading_out(+1)
                try:
                    return func(*args, **(kwargs or {}))
                finally:
                    self.guard.reading_out(-1)
        return func(*args, **(kwargs or {}))

    def _check_round_trip(self, name: str, args: Any, kwargs: Mapping[str, Any]) -> bool:
        if name in _READS_OUT and args and isinstance(args[0], torch.Tensor):
            t = args[0]  # a storage holds the whole base tensor, not only this view of it
            count = t.untyped_storage().nbytes() // max(t.element_size(), 1) if "storage" in name else t.numel()
            self.guard.read_into_python(count, f"Tensor.{name}()")
            return True
        return False


class _AtenOps(TorchDispatchMode):
    def __init__(self, guard: SolutionGuard) -> None:
        super().__init__()
        self.guard = guard

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's __torch_dispatch__ to keep torch.compile out of it, and that wrapper imports
        # torch._dynamo (and sympy) on the first op: 1.4-1.8 s of every worker's start. torch.compile is refused to a
        # solution (a forbidden call), so there is nothing to keep out.
        return False

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if _is_suspended():
            return func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        namespace = getattr(func, "namespace", None)
        if namespace != "aten":  # a custom op registered under an allowed name (mylib::empty) is still compute
            self.guard.record(f"torch op {namespace}::{name} ran in solution(); only aten glue may run outside Triton")
        if name not in ALLOWED_OPS and f"aten.{name}" not in self.guard.allowed_ops:
            self.guard.record(f"torch op aten.{name} ran in solution(); compute must happen in Triton kernels")
        if name == "_local_scalar_dense":  # .item(): a few scalars for a launch grid, not task data element by element
            self.guard.read_into_python(1, ".item()")
        elif name in _COPIES:
            to_host = _copied_to_host(name, args, kwargs or {})
            if (
                to_host and not self.guard.reading_out_now
            ):  # the host's copy is then Python's to read (numpy's array interface over its data_ptr)
                self.guard.read_into_python(to_host, "a copy from the GPU to the host")
        if (kwargs or {}).get("pin_memory"):
            self.guard.record("pinned host memory allocated inside solution(): kernels must write device memory")
        out = func(*args, **(kwargs or {}))
        if name in POISONED_OPS and self.guard.poison:
            poison_(out)
        return out


def _copied_to_host(name: str, args: Any, kwargs: Mapping[str, Any]) -> int:
    """Elements a copy op moves from a GPU tensor to host memory (0 for any other copy)."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if name == "_to_copy":
        device = kwargs.get("device")
        source, to_cpu = (tensors[0] if tensors else None), device is not None and torch.device(device).type == "cpu"
    elif name == "copy_":  # copy_(destination, source)
        source = tensors[1] if len(tensors) > 1 else None
        to_cpu = bool(tensors) and tensors[0].device.type == "cpu"
    else:  # _copy_from(source, destination)
        source = tensors[0] if tensors else None
        to_cpu = len(tensors) > 1 and tensors[1].device.type == "cpu"
    return source.numel() if to_cpu and source is not None and source.device.type == "cuda" else 0


class SolutionGuard:
    """Context manager around one call of solution(). Violations are recorded even when the solution
    swallows the exception, and the first one is raised again when the block exits. Its state is frozen:
    attributes cannot be rebound, and verify_intact() notices one rebound behind its back."""

    __slots__ = ("_forbidden", "_allowed", "_poison", "_violations", "_launches", "_modes", "_marks", "_stack")
    _forbidden: MappingProxyType[Any, str]
    _allowed: frozenset[str]
    _poison: bool
    _violations: list[str]
    _launches: list[int]
    _modes: tuple[_AtenOps, _ForbiddenFunctions]
    _marks: dict[str, Any]
    _stack: contextlib.ExitStack

    def __init__(self, forbidden: dict[Any, str], allowed_ops: Iterable[str], poison: bool = True) -> None:
        mode_locks.lock(_in_call, _refuse_unlock)
        init = object.__setattr__
        init(self, "_forbidden", MappingProxyType(dict(forbidden)))
        init(self, "_allowed", frozenset(allowed_ops))
        init(self, "_poison", bool(poison))
        init(self, "_violations", [])
        # Triton launches, tensor elements read into Python in the current call, and how deep in a counted read
        # (tolist(), numpy(), ...) the current op is
        init(self, "_launches", [0, 0, 0])
        init(self, "_modes", (_AtenOps(self), _ForbiddenFunctions(self)))
        init(self, "_stack", contextlib.ExitStack())
        init(self, "_marks", {"outside": mode_locks.snapshot(), "state": self._fingerprint()})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("the guard's state is frozen")

    forbidden = property(lambda self: self._forbidden, doc="forbidden callables -> their dotted names (read-only)")
    allowed_ops = property(lambda self: self._allowed, doc="ops the task allows beyond ALLOWED_OPS")
    poison = property(lambda self: self._poison)
    violations = property(lambda self: tuple(self._violations), doc="what the guard refused, swallowed or not")
    launches = property(lambda self: self._launches[0], doc="Triton launches counted in the current/last call")

    def _fingerprint(self) -> tuple[Any, ...]:
        modes = tuple((type(m), m.__dict__.get("guard")) for m in self._modes)
        return (id(self._forbidden), len(self._forbidden), self._allowed, self._poison, modes, id(self._violations))

    def _count_launch(self) -> None:
        self._launches[0] += 1

    def next_call(self) -> None:
        """A timed batch runs several calls in one guarded region: the read budget is each call's, so it starts
        again here (the launch count goes on; the worker takes differences). Without it, 2 calls reading 129 expert
        offsets each were refused on the H200 as 258 elements in one call."""
        self._launches[1] = 0

    def reading_out(self, step: int) -> None:
        self._launches[2] += step

    reading_out_now = property(lambda self: self._launches[2] > 0, doc="inside a read already counted")

    def read_into_python(self, count: int, how: str) -> None:
        """Count `count` tensor elements leaving for Python or the host in this call; refuse past READ_BUDGET."""
        self._launches[1] += count
        if self._launches[1] > READ_BUDGET:
            self.record(f"more than {READ_BUDGET} tensor elements read into Python in one call of solution() "
                        f"({self._launches[1]} with {how}): compute must stay in Triton")  # fmt: skip

    def record(self, message: str) -> None:
        self._violations.append(message)
        _report(message)
        raise ForbiddenCall(message)

    def __enter__(self) -> SolutionGuard:
        self._violations.clear()
        self._launches[0] = self._launches[1] = self._launches[2] = 0
        for mode in self._modes:
            self._stack.enter_context(mode)
        self._marks["inside"] = mode_locks.snapshot()
        _state.active = self
        return self

    def __exit__(self, *exc: object) -> None:
        broken = self.verify_intact()
        _state.active = None
        if broken is None:
            self._stack.close()
        else:
            mode_locks.restore(self._marks["outside"])
            object.__setattr__(self, "_stack", contextlib.ExitStack())
        if self._violations and not isinstance(exc[1], ForbiddenCall):
            raise ForbiddenCall(self._violations[0])

    def verify_intact(self) -> str | None:
        """None if the torch mode stacks (and the dispatch-key state) are exactly as the guard left them, its modes
        and state are its own, the mode entry points are still locked and torch's timing classes are unpatched;
        otherwise what differs, recorded as a violation (not raised)."""
        inside = getattr(_state, "active", None) is self
        expected = self._marks["inside" if inside else "outside"]
        problem = mode_locks.difference(expected, mode_locks.snapshot())
        if problem is None and self._fingerprint() != self._marks["state"]:
            problem = "the guard's state was rebound"
        changed = mode_locks.changed_classes() if problem is None else ()
        if changed:  # patched before this guard, between two calls
            problem = f"timing classes changed since the solution was imported: {', '.join(changed)}"
        if problem is not None:
            message = f"runtime guard tampered with: {problem}"
            self._violations.append(message)
            _report(message)
        return problem and f"runtime guard tampered with: {problem}"


def raising(name: str) -> Callable[..., Any]:
    """A stand-in for the task's reference inside the solution's process."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ForbiddenCall(f"the solution called {name}")

    return refuse
