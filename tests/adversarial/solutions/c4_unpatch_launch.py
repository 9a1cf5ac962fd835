"""Puts Triton's own JITFunction.run back in place of the harness's, fished out of the wrapper's closure (the
wrapper keeps no __wrapped__), so that its launches run without the guard's boundary, the launch count and, on the
GPU, the default-stream check; then launches honestly. Must be rejected: the worker watches the methods it patched.
"""

# expect: runtime:forbidden-op
# class: 4

import torch
import triton
import triton.language as tl
from triton.runtime import jit


def _original(wrapper):
    for cell in wrapper.__closure__ or ():
        value = cell.cell_contents
        if callable(value) and getattr(value, "__module__", "") == "triton.runtime.jit" and value.__name__ == "run":
            return value
    return wrapper


jit.JITFunction.run = _original(jit.JITFunction.run)


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out
