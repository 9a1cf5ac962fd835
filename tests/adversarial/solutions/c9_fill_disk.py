"""Writes up to 256 MB each into /tmp and into the workspace (its working folder) and leaves the files there. Bounded,
so that it harms nothing if it succeeds. Must be refused (the audit hook refuses writes outside the worker's
roots; the sandbox's /tmp is private and the eval folder is removed), and the test checks nothing is left on the
host's /tmp.
"""

# expect: runtime:refused
# class: 9
# host: disk

import _c9_fill_disk_impl
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
    _c9_fill_disk_impl.fill()
    return out
