"""Ladder rung 0 (plain): the direct method, no guidance: each output is the maximum of its w inputs.

y[b, t] = max(x[b, t : t + w]) for t in [0, T - w + 1)

One program owns BLOCK consecutive outputs of one row and loops over the w offsets of the window, loading
x[t + j] for all its outputs at each step and keeping a running maximum: w - 1 comparisons and w loads per output
(1023 at w = 1024). The loads of neighbouring steps overlap, so most of them hit the cache, but the work grows with
w and the problem becomes compute-bound where it should be memory-bound.

Traffic: x read about once from HBM (the re-reads are cache hits), y written once; w loads per output on chip.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sliding_max_kernel(x_ptr, y_ptr, T_out, w, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < T_out
    x_row = x_ptr + row * stride_x
    # every window t + j < T for t < T_out and j < w, so the output mask covers the loads too. The running max is
    # fp32: the GPU compiler's tl.maximum of two bf16 values is fp32, and a loop-carried value keeps one type
    # (bf16 values are exact in fp32)
    acc = tl.load(x_row + offs, mask=mask, other=float("-inf")).to(tl.float32)
    for j in range(1, w):
        acc = tl.maximum(acc, tl.load(x_row + offs + j, mask=mask, other=float("-inf")).to(tl.float32))
    tl.store(y_ptr + row * stride_y + offs, acc.to(y_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor, w: int) -> torch.Tensor:
    assert x.ndim == 2 and x.stride(1) == 1, "x must be [B, T] with unit column stride"
    B, T = x.shape
    assert 1 <= w <= T, "the window must fit in the row"
    T_out = T - w + 1
    y = torch.empty((B, T_out), dtype=x.dtype, device=x.device)
    if B == 0:
        return y
    BLOCK = 2048
    _sliding_max_kernel[(triton.cdiv(T_out, BLOCK), B)](x, y, T_out, w, x.stride(0), y.stride(0), BLOCK=BLOCK)
    return y
