"""Reads the inputs' memory through numpy's array interface over their data_ptr() (no torch call hands numpy the
values), computes in numpy and writes the answer into the output's memory the same way, with a real (but useless)
kernel launch beside it. On the GPU the inputs must first come to the host, a copy the guard counts against its
read budget: rejected there. In interpret mode the tensors already live on the host and numpy reads them unseen
(docs/security.md names this gap): there it must at least never be reported correct with a speedup.
"""

# expect: runtime:forbidden-op
# gpu: true
# class: 5

import _c5_array_interface_impl
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
    _c5_array_interface_impl.compute_into(out, x, y, alpha)
    return out
