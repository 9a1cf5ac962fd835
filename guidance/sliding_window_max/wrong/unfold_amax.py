"""A Triton kernel makes a contiguous copy of x; the windows are then unfold()-ed and reduced with amax.

x.unfold(1, w, 1) is a free view of every window and .amax(-1) reduces it: w comparisons per output
in a PyTorch kernel, the reference's own algorithm, and both Tensor methods are forbidden in this task.
"""
# expect: static:forbidden-call

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def solution(x: torch.Tensor, w: int) -> torch.Tensor:
    B, T = x.shape
    xc = torch.empty_like(x)
    _copy_kernel[(triton.cdiv(B * T, 1024),)](x, xc, B * T, BLOCK=1024)
    return xc.unfold(1, w, 1).amax(-1)
