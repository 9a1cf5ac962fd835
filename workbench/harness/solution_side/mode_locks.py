"""The torch entry points that pop or disable the guard's modes, locked inside a guarded call; snapshots of the
mode stacks and of torch's timing classes, for the guard's verify_intact().

Locking replaces each entry point in torch._C with a stub that refuses while a guarded call runs unsuspended and
calls the original otherwise, so torch's own code (outside calls, and Triton's launch path, which runs suspended) is
unaffected. torch's modules bound the originals by name when they were imported, so the guard's own pushes and
pops are untouched.
"""

from __future__ import annotations

import functools
import operator
import os
import sys
from collections.abc import Callable
from typing import Any

import torch

# (module, attribute): every way this torch offers to pop a mode, disable modes, or exclude the Python dispatch key.
ENTRY_POINTS: tuple[tuple[Any, str], ...] = tuple(
    (torch._C, name)
    for name in (
        "_set_dispatch_mode",
        "_unset_dispatch_mode",
        "_pop_torch_dispatch_stack",
        "_pop_torch_function_stack",
        "_DisableTorchDispatch",
        "DisableTorchFunction",
        "_ExcludeDispatchKeyGuard",
        "_ForceDispatchKeyGuard",
        "_dispatch_tls_set_dispatch_key_excluded",
        "_dispatch_tls_set_dispatch_key_included",
        "_DisablePythonDispatcher",
        "_set_torch_function_mode",
        "_unset_torch_function_mode",
    )
)
# The Python helpers of torch.overrides and torch.utils._python_dispatch that pop a mode for a while and push it
# back (so the stacks look intact afterwards). torch's own handle_torch_function calls them by module global for
# every Python-level torch function, so they refuse only a caller outside torch (and this package).
HELPERS: tuple[tuple[str, str], ...] = (
    ("torch.overrides", "_pop_mode_temporarily"),
    ("torch.overrides", "_pop_mode"),
    ("torch.overrides", "_disable_user_modes"),
    ("torch.utils._python_dispatch", "_pop_mode_temporarily"),
    ("torch.utils._python_dispatch", "_pop_mode"),
    ("torch.utils._python_dispatch", "_disable_current_modes"),
)
_TRUSTED_CALLERS = (os.path.dirname(os.path.realpath(torch.__file__)) + os.sep,
                    os.path.dirname(os.path.realpath(__file__)) + os.sep)  # fmt: skip
# Classes whose methods decide a latency or a device's work: patched between calls, verify_intact notices.
_WATCHED_CLASSES = ("Tensor", "_C.TensorBase", "cuda.Event", "cuda.Stream", "cuda.streams.Event")

_pop_function = torch._C._pop_torch_function_stack
_pop_dispatch = torch._C._pop_torch_dispatch_stack
_len_function = torch._C._len_torch_function_stack
_len_dispatch = torch._C._len_torch_dispatch_stack
_function_at = torch._C._get_function_stack_at
_dispatch_at = torch._C._get_dispatch_stack_at
_exclude_set = torch._C._dispatch_tls_local_exclude_set
_include_set = torch._C._dispatch_tls_local_include_set
_stubs: dict[tuple[int, str], Any] = {}


@functools.lru_cache(maxsize=4096)
def real_path(filename: str) -> str:
    """A code object's file, resolved once: its name cannot change, and resolving it (an lstat per folder) on every
    launch was most of the launch path's host time (2026-12-01). The cache lives in C, out of the solution's reach."""
    return os.path.realpath(filename)


def _stub(original: Any, what: str, in_call: Callable[[], bool], refuse: Callable[[str], None]) -> Any:
    def locked(*args: Any, **kwargs: Any) -> Any:
        if in_call():
            refuse(what)
        return original(*args, **kwargs)

    locked.__name__ = getattr(original, "__name__", what)
    return locked


def _helper_stub(original: Any, what: str, in_call: Callable[[], bool], refuse: Callable[[str], None]) -> Any:
    def locked(*args: Any, **kwargs: Any) -> Any:
        if in_call() and not real_path(sys._getframe(1).f_code.co_filename).startswith(_TRUSTED_CALLERS):
            refuse(what)
        return original(*args, **kwargs)

    locked.__name__ = getattr(original, "__name__", what)
    return locked


def lock(in_call: Callable[[], bool], refuse: Callable[[str], None]) -> None:
    """Install the stubs once per process (later calls do nothing)."""
    for module, name in ENTRY_POINTS:
        key = (id(module), name)
        original = getattr(module, name, None)
        if key in _stubs or original is None:
            continue
        stub = _stub(original, f"{module.__name__}.{name}", in_call, refuse)
        setattr(module, name, stub)
        _stubs[key] = stub
    for module_name, name in HELPERS:
        helper_module = sys.modules.get(module_name)
        original = getattr(helper_module, name, None)
        key = (id(helper_module), name)
        if helper_module is None or original is None or key in _stubs:
            continue
        stub = _helper_stub(original, f"{module_name}.{name}", in_call, refuse)
        setattr(helper_module, name, stub)
        _stubs[key] = stub


def _resolve(dotted: str) -> Any:
    obj: Any = torch
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    return obj


# The watched classes and their namespaces as torch left them, captured when the worker imports this module and
# again (once, rebase()) right before it imports the solution. Compared item by item by identity in C
# (map(operator.is_)): not through id(), which raises an audit event (a digest of Tensor's ~800 attributes then
# cost milliseconds per guarded region, which the timing check saw as unexplained wall time), and not with ==,
# which would run a replacement's own __eq__.


def _capture() -> tuple[tuple[str, type, tuple[Any, ...], tuple[Any, ...]], ...]:
    return tuple(
        (dotted, cls, tuple(vars(cls).keys()), tuple(vars(cls).values()))
        for dotted in _WATCHED_CLASSES
        if isinstance(cls := _resolve(dotted), type)
    )


def rebase() -> None:
    """Take the classes as they are now as the baseline: the worker calls this right before it imports the solution,
    so that whatever torch and Triton set up lazily until then is the baseline, and nothing the solution did is."""
    global _BASELINE, _rebased
    if _rebased:
        raise RuntimeError("the timing classes' baseline is taken once, before the solution is imported")
    _rebased = True
    _BASELINE = _capture()


def changed_classes() -> tuple[str, ...]:
    """The watched classes rebound, or with a method added, removed, renamed or replaced since the baseline."""
    changed = []
    for dotted, cls, keys, values in _BASELINE:
        now = vars(cls)
        same = _resolve(dotted) is cls and len(now) == len(keys)
        if not (same and all(map(operator.is_, keys, now.keys())) and all(map(operator.is_, values, now.values()))):
            changed.append(dotted)
    return tuple(changed)


_BASELINE = _capture()
_rebased = False


def snapshot() -> dict[str, Any]:
    """The state verify_intact() compares: mode stacks by identity, dispatch-key TLS, locks, watched classes."""
    locks = tuple(getattr(module, name, None) is _stubs.get((id(module), name)) for module, name in ENTRY_POINTS)
    return {
        "function modes": tuple(id(_function_at(i)) for i in range(_len_function())),
        "dispatch modes": tuple(id(_dispatch_at(i)) for i in range(_len_dispatch())),
        "dispatch keys": (repr(_exclude_set()), repr(_include_set())),
        "torch function": (torch._C._is_torch_function_enabled(), torch._C._is_torch_function_all_disabled()),
        "mode locks": locks,
        "timing classes": changed_classes(),
    }


def difference(expected: dict[str, Any], now: dict[str, Any]) -> str | None:
    """Which part of the state changed, or None."""
    changed = [key for key in expected if expected[key] != now.get(key)]
    return f"{', '.join(changed)} changed" if changed else None


def restore(outside: dict[str, Any]) -> None:
    """Pop whatever is above the stacks' depth before the call (after tampering, the guard's own exit cannot)."""
    while _len_function() > len(outside["function modes"]):
        _pop_function()
    while _len_dispatch() > len(outside["dispatch modes"]):
        _pop_dispatch(None)
