"""suspended() lets only the harness's code suspend the guard, but the harness's own launch path runs suspended and
touches the kernel's arguments there (the interpreter copies them, the launcher reads data_ptr()): a tensor
subclass passed as an extra kernel argument gets its __torch_function__ called inside that suspended region, and
computes alpha * x + y with plain torch into the (plain) output. Must be rejected as torch compute outside
Triton.
"""

# expect: runtime:forbidden-op
# class: 2

import _c2_suspended_by_proxy_impl
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
def carry_kernel(x_ptr, spy_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def solution(x, y, alpha):
    out = wrong(x)
    spy = _c2_suspended_by_proxy_impl.spy(out, x, y, alpha)
    carry_kernel[(1,)](x, spy, x.numel(), BLOCK=1024)
    return out
