"""Speed for Triton's CPU interpreter (TRITON_INTERPRET=1): the same answers, in a fraction of the time.

Three costs dominated the interpret suite (profiled on Triton 3.6; 3.9's code is the same):
- `tl.associative_scan` and `tl.reduce` with a combine function of the kernel's own run the function once per
  element, through the whole semantic layer (a segmented scan's 2-workload eval: 25 s of 30). Here they run it
  once per step of a tree over whole arrays: log2(n) calls for a scan, log2(n) for a reduction. A combine function
  is associative by contract (the GPU evaluates it in a tree too), so only the rounding order changes, as on the
  GPU. One that branches on its operands (`if a > b:`, which is legal on the GPU, where it sees scalars) cannot
  run on arrays: it is noticed at its first branch and the element-by-element original runs instead.
- Every call of a `@triton.jit` helper from a kernel re-patched the language (an `inspect.getmembers` over
  triton.language, its tensor and libdevice): 0.2 ms a call, 40% of a cross-entropy eval. Within one launch the
  language stays patched, so a helper's namespace is patched on its first call only.
- `_get_np_dtype` rebuilt a 19-entry dict of dtypes (hashing each) on every call; its answers are cached.

Each is applied where the installed interpreter has the code it replaces, and named by `apply()`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

_MARK = "_workbench_speed"  # set on what was replaced: applying twice must not wrap twice


def _marked(wrapper: Any) -> Any:
    """Marked as ours, and without functools.wraps' __wrapped__: the launch path's original must stay out of a
    solution's reach (see triton_patches._without_original)."""
    setattr(wrapper, _MARK, True)
    wrapper.__dict__.pop("__wrapped__", None)
    return wrapper


def _interp() -> Any:
    import triton.runtime.interpreter as interpreter

    return interpreter


def _tl() -> Any:
    import triton.language as tl

    return tl


# -- tree scans and reductions -------------------------------------------------------------------------------
class _Branched(Exception):
    """The combine function branched on a block of operands: it needs the element-by-element original."""


_vectorising = threading.local()


def _along(axis: int, ndim: int, start: int | None, stop: int | None, step: int | None = None) -> tuple[slice, ...]:
    return tuple(slice(start, stop, step) if i == axis else slice(None) for i in range(ndim))


def _combine(op: Any, left: list[Any], right: list[Any], dtypes: list[Any]) -> list[Any]:
    """The combine function on whole arrays: (left, right) -> arrays of the inputs' dtypes and the operands' shape."""
    tl = _tl()
    args = [op.to_tensor(a, dt) for a, dt in zip(left, dtypes, strict=True)]
    args += [op.to_tensor(b, dt) for b, dt in zip(right, dtypes, strict=True)]
    _vectorising.active = True
    try:
        out = op.combine_fn.fn(*args)
    finally:
        _vectorising.active = False
    outs = out if isinstance(out, tuple) else (out,)
    shape = left[0].shape
    values = []
    for value, like in zip(outs, left, strict=True):
        if isinstance(value, tl.core.tensor):
            value = value.handle.data
        elif isinstance(value, tl.constexpr):
            value = value.value
        values.append(np.broadcast_to(np.asarray(value), shape).astype(like.dtype))
    return values


def _tree_scan(op: Any, inputs: Any) -> list[Any]:
    """Hillis-Steele: after the step of distance d, element i holds the combination of elements i - 2d + 1 .. i, in
    order (the earlier operand always on the left, so a non-commutative combine stays right). Each step combines
    whole blocks, the left operand shifted by d (block shapes must stay powers of two); the first d results, which
    combined wrapped-around elements, are dropped."""
    axis = op.axis
    state = [np.array(arg.handle.data, copy=True) for arg in inputs]
    dtypes = [arg.dtype for arg in inputs]
    n, ndim = state[0].shape[axis], state[0].ndim
    distance = 1
    with np.errstate(all="ignore"):  # the dropped lanes may overflow; the kept ones are the original's values
        while distance < n:
            shifted = [np.roll(s, distance, axis=axis) for s in state]
            combined = _combine(op, shifted, state, dtypes)
            kept = _along(axis, ndim, distance, None)
            for s, c in zip(state, combined, strict=True):
                s[kept] = c[kept]
            distance *= 2
    return [op.to_tensor(s, dt) for s, dt in zip(state, dtypes, strict=True)]


def _tree_reduce(op: Any, inputs: Any) -> list[Any]:
    """Adjacent pairs combined level by level (an odd last element carried to the next level), then the original's
    handling of keep_dims and of a reduction over every axis."""
    original_axis = op.axis
    inputs, axis = op.unravel(inputs, op.axis)
    dtypes = [arg.dtype for arg in inputs]
    state = [np.asarray(arg.handle.data) for arg in inputs]
    input_shape = state[0].shape
    ndim = len(input_shape)
    n = input_shape[axis]
    while n > 1:
        pairs = n // 2
        left = [s[_along(axis, ndim, 0, 2 * pairs, 2)] for s in state]
        right = [s[_along(axis, ndim, 1, 2 * pairs, 2)] for s in state]
        combined = _combine(op, left, right, dtypes)
        if n % 2:
            combined = [np.concatenate([c, s[_along(axis, ndim, n - 1, n)]], axis=axis)
                        for c, s in zip(combined, state, strict=True)]  # fmt: skip
        state, n = combined, pairs + n % 2
    results = []
    for s, dt in zip(state, dtypes, strict=True):
        data: Any = np.take(s, 0, axis=axis)
        if op.keep_dims:
            if original_axis is not None:
                data = np.expand_dims(data, axis)
            else:
                for _ in range(ndim):
                    data = np.expand_dims(data, 0)
        elif original_axis is None:
            data = data.item()
        results.append(op.to_tensor(data, dt))
    return results


def _branched(exc: BaseException | None) -> bool:
    """Whether `exc` is, or was raised from, a branch on a block (a helper's call wraps it in InterpreterError)."""
    while exc is not None:
        if isinstance(exc, _Branched):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _falling_back(tree: Callable[[Any, Any], list[Any]], original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def run(self: Any, inputs: Any) -> Any:
        try:
            return tree(self, inputs)
        except Exception as exc:
            if not _branched(exc):
                raise
            return original(self, inputs)

    return _marked(run)


def _refusing_bool(original: Callable[..., Any]) -> Callable[..., Any]:
    """A block's truth value is asked only by a branch; inside a tree combine that means the function wanted
    scalars."""

    @functools.wraps(original)
    def truth(self: Any) -> bool:
        if getattr(_vectorising, "active", False) and np.asarray(self.handle.data).size > 1:
            raise _Branched
        return bool(original(self))

    return _marked(truth)


def tree_scans_and_reductions() -> str | None:
    interpreter = _interp()
    scan, reduce = getattr(interpreter, "ScanOps", None), getattr(interpreter, "ReduceOps", None)
    if scan is None or reduce is None or not hasattr(scan, "generic_scan") or not hasattr(reduce, "generic_reduce"):
        return None
    if getattr(scan.generic_scan, _MARK, False):
        return "interpreter: combine functions run over trees of whole blocks"
    scan.generic_scan = _falling_back(_tree_scan, scan.generic_scan)
    reduce.generic_reduce = _falling_back(_tree_reduce, reduce.generic_reduce)
    patch_lang_tensor = interpreter._patch_lang_tensor  # sets tensor.__bool__ at each launch: wrap what it sets

    @functools.wraps(patch_lang_tensor)
    def patch_tensor(tensor: Any, scope: Any) -> None:
        patch_lang_tensor(tensor, scope)
        current = tensor.__bool__
        if not getattr(current, _MARK, False):
            scope.set_attr(tensor, "__bool__", _refusing_bool(current))

    interpreter._patch_lang_tensor = _marked(patch_tensor)
    return "interpreter: combine functions run over trees of whole blocks"


# -- one patching of the language per launch -----------------------------------------------------------------
class _NothingToRestore:
    def restore(self) -> None:
        pass


def language_patched_once_per_launch() -> str | None:
    """A helper's call re-ran `_patch_lang(helper)`, which finds the language already patched by the launch and
    changes nothing but costs 0.2 ms. The launch's own call, and a helper from a namespace not yet seen in this
    launch, still patch in full; the launch's end clears what was seen."""
    interpreter = _interp()
    executor = getattr(interpreter, "GridExecutor", None)
    if executor is None or not hasattr(interpreter, "_patch_lang"):
        return None
    if getattr(interpreter._patch_lang, _MARK, False):
        return "interpreter: the language is patched once per launch"
    launch = threading.local()
    launch_call, patch_lang = executor.__call__, interpreter._patch_lang

    @functools.wraps(launch_call)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        launch.seen = set()
        try:
            return launch_call(self, *args, **kwargs)
        finally:
            launch.seen = None

    @functools.wraps(patch_lang)
    def patch_once(fn: Any) -> Any:
        seen = getattr(launch, "seen", None)
        key = id(fn.__globals__)
        if seen is not None and key in seen:
            return _NothingToRestore()
        scope = patch_lang(fn)
        if seen is not None:
            seen.add(key)
        return scope

    executor.__call__ = _marked(call)
    interpreter._patch_lang = _marked(patch_once)
    return "interpreter: the language is patched once per launch"


# -- dtype lookups --------------------------------------------------------------------------------------------
def dtype_lookups_cached() -> str | None:
    interpreter, tl = _interp(), _tl()
    original = getattr(interpreter, "_get_np_dtype", None)
    if original is None:
        return None
    if getattr(original, _MARK, False):
        return "interpreter: dtype lookups cached"
    scalars: dict[Any, Any] = {}
    pointer, block = tl.pointer_type, tl.block_type

    def lookup(tt_dtype: Any) -> Any:
        if isinstance(tt_dtype, block):
            tt_dtype = tt_dtype.element_ty
        if isinstance(tt_dtype, pointer):
            return np.dtype(np.uint64)
        try:
            return scalars[tt_dtype]
        except KeyError:
            found = scalars[tt_dtype] = original(tt_dtype)  # an unknown dtype raises as the original does
            return found

    interpreter._get_np_dtype = _marked(lookup)
    return "interpreter: dtype lookups cached"


SPEEDUPS = (tree_scans_and_reductions, language_patched_once_per_launch, dtype_lookups_cached)


def apply() -> list[str]:
    """Apply every speed-up the installed interpreter has the code for (after interpreter_fixes, whose `_patch_lang`
    wrapper the once-per-launch patching wraps in turn); returns their names."""
    return [name for speedup in SPEEDUPS if (name := speedup()) is not None]
