"""Patches the harness applies to Triton inside the solution's child process, before the solution
is imported, so that no solution has to work around them itself:

- the launch path (JIT, interpreter, autotuner) runs with the runtime guard suspended, since it
  moves tensors and benchmarks through torch on the solution's behalf;
- under TRITON_INTERPRET=1, `tl.dot` on bf16 operands upcasts them to fp32 (the interpreter
  otherwise multiplies the raw bf16 bit patterns), a multi-config `@triton.autotune` runs its
  first config (benchmarking configs needs a GPU driver), and a scalar tensor used as an index
  (`range(n)` over a runtime bound) converts under numpy 2.4+, which refuses `int()` of a
  one-element 1-d array (fixed in Triton 3.9's interpreter; patched here for older ones).
"""

from __future__ import annotations

import functools
from typing import Any

from .guard import suspended


def _guarded(method: Any) -> Any:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        with suspended():
            return method(*args, **kwargs)

    return call


def apply(interpret: bool) -> list[str]:
    """Apply the patches; returns what was patched, for the result's notes."""
    import triton.runtime.autotuner as autotuner
    import triton.runtime.jit as jit

    applied = []
    jit.JITFunction.run = _guarded(jit.JITFunction.run)  # type: ignore[method-assign]
    autotuner.Autotuner.run = _guarded(autotuner.Autotuner.run)  # type: ignore[method-assign]
    applied.append("launch path runs outside the runtime guard")
    if interpret:
        applied.extend(_patch_interpreter(autotuner))
    return applied


def _patch_interpreter(autotuner: Any) -> list[str]:
    import numpy as np
    import triton.language as tl
    import triton.runtime.interpreter as interpreter

    interpreter.GridExecutor.__call__ = _guarded(interpreter.GridExecutor.__call__)  # type: ignore[method-assign]
    original_dot = interpreter.InterpreterBuilder.create_dot

    def create_dot(self: Any, a: Any, b: Any, d: Any, *args: Any, **kwargs: Any) -> Any:
        def widened(handle: Any) -> Any:
            if handle.dtype.scalar != tl.bfloat16:
                return handle
            data = interpreter._convert_float(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
            return interpreter.TensorHandle(data, tl.float32)

        return original_dot(self, widened(a), widened(b), d, *args, **kwargs)

    interpreter.InterpreterBuilder.create_dot = create_dot  # type: ignore[method-assign]

    original_run = autotuner.Autotuner.run

    def run_first_config(self: Any, *args: Any, **kwargs: Any) -> Any:
        if len(self.configs) > 1:
            self.configs = self.configs[:1]
        return original_run(self, *args, **kwargs)

    autotuner.Autotuner.run = run_first_config

    original_patch_tensor = interpreter._patch_lang_tensor

    def patch_lang_tensor(tensor: Any, scope: Any) -> None:
        original_patch_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

    interpreter._patch_lang_tensor = patch_lang_tensor
    return [
        "interpreter: bf16 tl.dot upcast to fp32",
        "interpreter: @triton.autotune runs its first config",
        "interpreter: scalar tensors convert to int under numpy 2.4+",
    ]
