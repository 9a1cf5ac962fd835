"""Reaches the task's forbidden torch.add through importlib (a module name and an attribute built from strings, in a
helper the static rules do not read). Must be rejected at run time: the guard names forbidden functions by
identity, however they were reached.
"""

# expect: runtime:forbidden-op
# class: 4

import _c4_importlib_impl
import torch
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def fill_kernel(out_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32) + value, mask=offs < n)


def honest(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out


def wrong(x):
    out = torch.empty_like(x)
    fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, 0.0, x.numel(), BLOCK=1024)
    return out


def solution(x, y, alpha):
    out = honest(x, y, alpha)
    out.copy_(_c4_importlib_impl.add()(y, x, alpha=alpha))
    return out
