"""Patches torch.cuda.Event.elapsed_time (a method of the class the worker captured before the solution loaded, so
the patch reaches the worker's timer) and torch.cuda.synchronize. Done after the first call, from a patched
json.dumps when the worker replies (outside any guarded call), so that the next call's guard takes the patched
class as its baseline: every sample then reads 1 us. Must be rejected on the GPU: samples that do not account for
the checker's wall clock are timing-unverified. In interpret mode there is nothing to time.
"""

# expect: timing:unverified
# also: runtime:forbidden-op
# class: 7
# gpu: true

import _c7_event_patch_impl  # noqa: F401 - patches at import
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
