"""Runs the kernel on a side stream the worker's CUDA events (recorded on the default stream) do not cover, and
returns without waiting: the events measure almost nothing. Must be rejected on the GPU: the device stays busy after
the default stream's last call is done (the batch's tail), and for longer kernels the checker's wall clock around the
batch cannot be explained by the samples either. On the H200 (2026-12-01) it got past both: the worker's host time
per call (0.28 ms, the honest expert's too) hid its 0.05 ms kernel. Triton's launches are now checked for the default
stream. In interpret mode there are no streams; it computes honestly and gets no speedup.
"""

# expect: timing:unverified
# also: runtime:forbidden-op (seen first: a launch on a stream other than the default one)
# class: 7
# gpu: true

import _c7_side_stream_impl
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
    out = torch.empty_like(x)
    with _c7_side_stream_impl.side_stream(x):
        scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out
