"""Once-a-process costs, paid while a spare worker waits for its eval instead of inside the eval's first call.

Triton's: hashing its own sources and library for its cache key (0.42 s on the H200 host), importing the compiler's
backends (0.17 s), loading the driver's helpers and a launcher. The guard's: the first torch op dispatched under its
modes (torch's wrapper around a dispatch mode imported torch._dynamo and sympy there, 2.7 s on the development machine
and 4-7 s on the H200 host under the audit hook, until the guard's mode opted out of it: 0.07 s now)."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)


def warm_guard(guard_type: Any, device: torch.device) -> str | None:
    """One allocation under a guard like a checked call's (its modes, the poisoning of fresh memory)."""
    try:
        with guard_type({}, (), poison=True):
            torch.empty(64, device=device)
        return None
    except Exception as exc:  # noqa: BLE001 - as warm()
        return f"{type(exc).__name__}: {exc}"


def warm(device: torch.device) -> str | None:
    """Compile (or load from the cache) and launch one tiny kernel; None, or why it could not (the eval then pays
    the costs itself, which is all a failure here means)."""
    try:
        x = torch.zeros(64, device=device)
        _touch[(1,)](x, 64, BLOCK=64)
        torch.cuda.synchronize(device)
        return None
    except Exception as exc:  # noqa: BLE001 - a warm-up is an optimisation; the solution's own launch will say more
        return f"{type(exc).__name__}: {exc}"
