"""Registers a custom op mylib::empty (the name of an allowed aten op) whose CPU/CUDA kernel computes alpha * x + y
in torch, and calls it. Must be rejected: the guard checks the op's namespace as well as its name.
"""

# expect: runtime:forbidden-op
# also: error:exception, runtime:refused  (torch.library reads its caller's frame: refused to the solution)
# class: 4

import _c4_custom_op_name_impl
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
    out = wrong(x)
    out.copy_(_c4_custom_op_name_impl.op(x, y, alpha))
    return out
