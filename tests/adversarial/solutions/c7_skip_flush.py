"""The worker flushes L2 before each timed call with flush.zero_(); this patches torch.Tensor.zero_ (after the first
call, from a patched json.dumps, outside any guarded call, so that the guards' snapshots take it as their baseline)
to leave a tensor of the flush buffer's size alone: every timed call runs on a warm L2. Must be rejected on the
GPU: the batch's wall time no longer holds the flushes the checker accounts for.
"""

# expect: timing:unverified
# also: runtime:forbidden-op (seen first: json.dumps rebound at import, or torch.Tensor changed since import)
# class: 7
# gpu: true

import _c7_skip_flush_impl  # noqa: F401 - patches at import
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
    return honest(x, y, alpha)
