"""Compiles its kernel with warmup() and launches the compiled kernel itself, handing Triton's launcher a side
stream of its own (no `torch.cuda.stream(...)` context for a check of the current stream to see); one honest launch
on the default stream keeps the launch count. Must be rejected on the GPU: every compiled launch is checked for the
default stream where Triton hands the kernel to CUDA. In interpret mode there are no streams; it computes honestly
through the interpreter (warmup there only runs the kernel) and gets no speedup.
"""

# expect: timing:unverified
# also: runtime:forbidden-op (seen first: a launch on a stream other than the default one)
# class: 7
# gpu: true

import torch
import triton
import triton.language as tl

_side = {}


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 1024),)
    if not x.is_cuda:
        scale_add_kernel[grid](x, y, out, alpha, x.numel(), BLOCK=1024)
        return out
    scale_add_kernel[(1,)](x, y, out, alpha, min(x.numel(), 1024), BLOCK=1024)  # counted, on the default stream
    compiled = scale_add_kernel.warmup(x, y, out, alpha, x.numel(), BLOCK=1024, grid=grid)
    stream = _side.setdefault("s", torch.cuda.Stream())
    compiled[(grid[0], 1, 1)](x, y, out, alpha, x.numel(), 1024, stream=stream.cuda_stream)
    return out
