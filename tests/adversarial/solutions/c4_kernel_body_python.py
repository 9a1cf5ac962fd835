"""In the CPU interpreter a @triton.jit body runs as Python inside Triton's launch path (where the guard is
suspended): the kernel calls a plain Python function that computes alpha * x + y with torch on the real tensors.
Must be rejected as torch compute outside Triton (interpret mode only: on the GPU the body is compiled).
"""

# expect: runtime:forbidden-op
# class: 4

import _c4_kernel_body_python_impl as side
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


@triton.jit
def body_kernel(x_ptr, n, BLOCK: tl.constexpr):
    side.run()


def solution(x, y, alpha):
    out = wrong(x)
    side.arm(out, x, y, alpha)
    body_kernel[(1,)](x, x.numel(), BLOCK=1024)
    return out
