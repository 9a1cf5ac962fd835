"""Patches the harness applies to Triton inside the solution's worker, before the solution is imported:
where the runtime guard's boundary runs through Triton's launch path, the launch count, and (under
TRITON_INTERPRET=1) what the CPU interpreter needs to run GPU kernels (see interpreter_fixes.py).

Only Triton's own work is suspended from the guard: the launcher, the autotuner's bookkeeping and
benchmarking, the interpreter's copies of the arguments in and out. Code of the solution that Triton
calls back (autotune `pre_hook`/`post_hook`, a config's `pre_hook`, `prune_configs_by` functions,
`add_pre_run_hook` hooks, a grid function, and the kernel body the interpreter runs as Python) runs
guarded, so it cannot compute with torch. Every launch, compiled or interpreted, counts once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .guard import ForbiddenCall, forbid, note_launch, suspended, unsuspended

_GUARDED = "__workbench_guarded__"


def apply(interpret: bool) -> list[str]:
    """Apply the patches; returns what was patched, for the result's notes."""
    import triton.runtime.autotuner as autotuner
    import triton.runtime.jit as jit

    _patch_jit_launch(jit)
    _patch_autotuner(autotuner)
    applied = ["launch path runs outside the runtime guard, user hooks inside it; launches counted"]
    if not interpret:
        applied.append(_patch_cuda_launcher())
    if interpret:
        from . import interpreter_fixes, interpreter_speed

        applied.append(_patch_interpreter_launch())
        applied.extend(interpreter_fixes.apply())
        applied.extend(interpreter_speed.apply())  # last: it wraps what the fixes patched
        applied.append(_autotune_first_config(autotuner))
    return applied


def _without_original(wrapper: Any) -> None:
    """functools.wraps leaves the original on the wrapper as __wrapped__, where a solution could call it (or put
    it back) to launch past the boundary, the launch count and the stream check; it stays only in the closure."""
    del wrapper.__wrapped__


def _user(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The solution's callable, to run guarded even when Triton calls it from a suspended region."""
    if getattr(fn, _GUARDED, False):
        return fn

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        with unsuspended():
            return fn(*args, **kwargs)

    setattr(guarded, _GUARDED, True)
    return guarded


def _plain_arguments(values: Any) -> None:
    """Refuse a torch.Tensor subclass as a kernel argument: Triton's launch path reads its arguments
    (data_ptr(), storages, copies) with the guard suspended, so a subclass's __torch_function__ or
    overridden methods would compute there unseen. `triton.reinterpret` wrappers are checked by base."""
    import torch

    for value in values:
        if isinstance(value, (tuple, list)):
            _plain_arguments(value)
            continue
        if type(value).__name__ == "TensorWrapper":
            value = getattr(value, "base", value)
        kind = type(value)
        if issubclass(kind, torch.Tensor) and kind not in (torch.Tensor, torch.nn.Parameter):
            raise ForbiddenCall(
                f"a {kind.__name__} (a torch.Tensor subclass) passed to a Triton kernel: pass plain tensors, "
                "Triton's launch path runs outside the runtime guard"
            )


def _patch_jit_launch(jit: Any) -> None:
    original = jit.JITFunction.run

    @functools.wraps(original)
    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        _plain_arguments((*args, *kwargs.values()))
        self.pre_run_hooks[:] = [_user(hook) for hook in self.pre_run_hooks]
        if callable(grid):
            grid = _user(grid)
        with suspended():
            out = original(self, *args, grid=grid, warmup=warmup, **kwargs)
        if not warmup:  # a warmup compiles without launching
            note_launch()
        return out

    _without_original(run)
    jit.JITFunction.run = run


def _patch_cuda_launcher() -> str:
    """Every compiled launch goes to the default stream. The timed events are recorded there, and work a kernel
    does on another stream is outside them (its calls timed at almost nothing, the work done meanwhile). The check
    sits where Triton hands a kernel to CUDA, so `torch.cuda.stream(...)` around a launch and a compiled kernel's
    `run(...)` given a stream of the solution's are both refused; the checker's tail and wall clock are the backstop."""
    import torch
    from triton.backends.nvidia.driver import CudaLauncher

    original = CudaLauncher.__call__
    device = torch.cuda.current_device()
    # the default stream's handle (0, the legacy stream, in torch), and CUDA's per-thread default stream (2), which
    # synchronises with it like the legacy stream does
    allowed = frozenset({torch.cuda.default_stream(device).cuda_stream, 0, 2})

    @functools.wraps(original)
    def call(self: Any, gridX: Any, gridY: Any, gridZ: Any, stream: Any, *args: Any) -> Any:  # noqa: N803
        if stream not in allowed:
            forbid("a Triton kernel launched on a stream other than the default one (the timed events cover the "
                   "default stream only; run every kernel there)")  # fmt: skip
        return original(self, gridX, gridY, gridZ, stream, *args)

    _without_original(call)
    CudaLauncher.__call__ = call
    return "compiled launches on the default stream only"


def _patch_autotuner(autotuner: Any) -> None:
    original = autotuner.Autotuner.run

    @functools.wraps(original)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        # the default hooks (reset_to_zero, restore_value) are Triton's own and stay suspended
        if getattr(self, "user_defined_pre_hook", False):
            self.pre_hook = _user(self.pre_hook)
        if getattr(self, "user_defined_post_hook", False):
            self.post_hook = _user(self.post_hook)
        for name in ("early_config_prune", "perf_model"):
            if callable(getattr(self, name, None)):
                setattr(self, name, _user(getattr(self, name)))
        for config in self.configs:
            if config.pre_hook is not None:
                config.pre_hook = _user(config.pre_hook)
        with suspended():
            return original(self, *args, **kwargs)

    _without_original(run)
    autotuner.Autotuner.run = run


def _trusted(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        with suspended():
            return method(*args, **kwargs)

    return call


def _patch_interpreter_launch() -> str:
    """The interpreter copies the arguments to the host and back through torch (Triton's work,
    suspended) and runs the kernel body as Python in between (the solution's code, guarded: also
    when the launch comes from the autotuner, which is suspended)."""
    import triton.runtime.interpreter as interpreter

    executor = interpreter.GridExecutor
    for name in ("_init_args_hst", "_restore_args_dev"):
        if not hasattr(executor, name):
            raise RuntimeError(
                f"this Triton's interpreter has no GridExecutor.{name}: "
                "the guard cannot tell its argument copies from the kernel body"
            )
        setattr(executor, name, _trusted(getattr(executor, name)))
    original = executor.__call__

    @functools.wraps(original)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        _plain_arguments((*args, *kwargs.values()))
        with unsuspended():
            out = original(self, *args, **kwargs)
        note_launch()
        return out

    _without_original(call)
    executor.__call__ = call
    return "interpreter: argument copies outside the runtime guard, the kernel body inside it"


def _autotune_first_config(autotuner: Any) -> str:
    """Benchmarking configs needs a GPU driver: a multi-config `@triton.autotune` runs its first."""
    guarded_run = autotuner.Autotuner.run

    @functools.wraps(guarded_run)
    def run_first_config(self: Any, *args: Any, **kwargs: Any) -> Any:
        if len(self.configs) > 1:
            self.configs = self.configs[:1]
        return guarded_run(self, *args, **kwargs)

    _without_original(run_first_config)
    autotuner.Autotuner.run = run_first_config
    return "interpreter: @triton.autotune runs its first config"
