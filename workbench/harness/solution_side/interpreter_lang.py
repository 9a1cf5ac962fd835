"""What Triton's CPU interpreter must patch in a kernel's namespace beyond `triton.language` itself:
builtins bound to other names (`_max = tl.max`, `from triton.language import program_id`) and the
libdevice modules, whose calls the interpreter cannot run at all (each becomes a numpy function here, or
a precise refusal naming the function).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])

# libdevice names (without `__nv_` and the fp32 suffix `f`) -> numpy, computed in fp64
_LIBDEVICE: dict[str, Callable[..., Any]] = {
    "exp": np.exp,
    "exp2": np.exp2,
    "exp10": lambda x: np.power(10.0, x),
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "cbrt": np.cbrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "atan2": np.arctan2,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "erf": _erf,
    "erfc": _erfc,
    "lgamma": _lgamma,
    "pow": np.power,
    "powi": np.power,
    "fabs": np.abs,
    "abs": np.abs,
    "llabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "rint": np.rint,
    "nearbyint": np.rint,
    "round": lambda x: np.trunc(x + np.copysign(0.5, x)),
    "fmax": np.fmax,
    "fmin": np.fmin,
    "fmod": np.fmod,
    "fma": lambda a, b, c: a * b + c,
    "hypot": np.hypot,
    "copysign": np.copysign,
    "fdim": lambda a, b: np.maximum(a - b, 0),
    "isnan": np.isnan,
    "isinf": np.isinf,
    "finite": np.isfinite,
    "isfinite": np.isfinite,
    "signbit": np.signbit,
    "div_rn": np.divide,
    "fast_expf": np.exp,
    "fast_exp": np.exp,
    "fast_logf": np.log,
    "fast_log": np.log,
    "fast_tanhf": np.tanh,
    "fast_powf": np.power,
    "saturate": lambda x: np.clip(x, 0.0, 1.0),
    "max": np.maximum,
    "min": np.minimum,
    "umax": np.maximum,
    "umin": np.minimum,
}


def _numpy_for(symbol: str) -> Callable[..., Any]:
    name = symbol.removeprefix("__nv_")
    for candidate in (name, name.removesuffix("f"), name.removesuffix("_rn").removesuffix("f")):
        if candidate in _LIBDEVICE:
            return _LIBDEVICE[candidate]
    raise NotImplementedError(
        f"libdevice function {symbol} cannot run in interpret mode (no CPU equivalent); "
        "evaluate on a GPU or use a triton.language function"
    )


def _libdevice_modules() -> tuple[Any, Any]:
    """The backend's libdevice (its functions are builtins) and `triton.language.extra.libdevice`, a
    module of stubs that the compiler redirects to the backend's and the interpreter runs as is (each
    returns None)."""
    import importlib

    def find(name: str) -> Any:
        try:
            return importlib.import_module(name)
        except ImportError:
            return None

    return find("triton.language.extra.cuda.libdevice"), find("triton.language.extra.libdevice")


def _redirect_stubs(stubs: Any, backend: Any, scope: Any) -> None:
    for name, stub in list(vars(stubs).items()):
        if not callable(stub) or name.startswith("_") or getattr(stub, "__module__", None) != stubs.__name__:
            continue
        target = getattr(backend, name, None) if backend is not None else None
        if target is None:
            target = _refusing(f"libdevice.{name}")
        scope.set_attr(stubs, name, target)


def _refusing(what: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{what} cannot run in interpret mode; evaluate on a GPU")

    return refuse


def namespace_builtins_and_libdevice() -> str:
    import triton.language as tl
    import triton.runtime.interpreter as interpreter

    tl_dtype_to_np = interpreter._get_np_dtype

    def create_extern_elementwise(self: Any, lib: Any, path: Any, symbol: str, args: Any, ret: Any, pure: Any) -> Any:
        fn = _numpy_for(symbol)
        wide = [np.asarray(a.data).astype(np.float64) if a.dtype.scalar.is_floating() else a.data for a in args]
        out = np.asarray(fn(*wide)).astype(tl_dtype_to_np(ret.scalar))
        return interpreter.TensorHandle(out, ret.scalar)

    interpreter.InterpreterBuilder.create_extern_elementwise = create_extern_elementwise
    original = interpreter._patch_lang

    @functools.wraps(original)
    def patch_lang(fn: Any) -> Any:
        namespace = fn.__globals__
        builtins = {k: v for k, v in namespace.items() if tl.core.is_builtin(v)}
        homes = {
            k: [(m, a) for m in (tl, tl.math, tl.core) for a, v in vars(m).items() if v is builtins[k]]
            for k in builtins
        }
        scope = original(fn)
        backend, stubs = _libdevice_modules()
        if backend is not None:
            interpreter._patch_builtin(backend, interpreter.interpreter_builder, scope)
        if stubs is not None:
            _redirect_stubs(stubs, backend, scope)
        for key, value in builtins.items():
            # the interpreted version, from whichever module of triton.language the interpreter patched
            patched = [getattr(m, a) for m, a in homes[key] if getattr(m, a) is not value]
            if patched:
                namespace[key] = patched[0]
        restore = scope.restore

        def restore_all() -> None:
            namespace.update(builtins)
            restore()

        scope.restore = restore_all
        return scope

    interpreter._patch_lang = patch_lang
    return "interpreter: aliased builtins and libdevice calls"
