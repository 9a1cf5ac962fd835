"""The expert's kernel launched on T_out // SPAN spans per row instead of cdiv(T_out, SPAN).

Every program is right, but the last partial span of each row is never launched, so its outputs keep
whatever torch.empty left there. T - w + 1 is never a multiple of the span (w >= 2 and T a power of
two or 5000), so every workload loses outputs; the interpret one (T_out = 4937, SPAN = 4096) leaves 841
per row unwritten.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def _sliding_max_kernel(x_ptr, y_ptr, T, T_out, stride_x, stride_y, W: tl.constexpr, SPAN: tl.constexpr):
    # Program (span, row): reads SPAN + w - 1 elements of the row (about SPAN from HBM), writes SPAN.
    o0 = tl.program_id(0) * SPAN
    row = tl.program_id(1).to(tl.int64)
    x_row = x_ptr + row * stride_x
    i = tl.arange(0, SPAN)
    # Scanned in fp32 (exact for bf16 inputs, whose values round-trip): the scans and maxima are
    # comparisons only, and the CPU interpreter cannot scan bf16.
    a = tl.load(x_row + o0 + i, mask=o0 + i < T, other=float("-inf")).to(tl.float32)
    col = i % W
    g_mask = (col != 0) & (o0 + W - 1 + i < T)
    g = tl.load(x_row + o0 + W - 1 + i, mask=g_mask, other=float("-inf")).to(tl.float32)
    h = tl.reshape(tl.associative_scan(tl.reshape(a, [SPAN // W, W]), 1, _max_combine, reverse=True), [SPAN])
    g = tl.reshape(tl.associative_scan(tl.reshape(g, [SPAN // W, W]), 1, _max_combine), [SPAN])
    y = tl.maximum(h, g).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + row * stride_y + o0 + i, y, mask=o0 + i < T_out)


def _span(w: int) -> int:
    # Several segments per program (at least 4096 elements, 8 windows) amortise the w - 1 re-read.
    return max(4096, 8 * w)


def solution(x: torch.Tensor, w: int) -> torch.Tensor:
    assert x.ndim == 2 and x.stride(1) == 1
    B, T = x.shape
    assert 2 <= w <= 1024 and w & (w - 1) == 0 and w <= T
    T_out = T - w + 1
    y = torch.empty((B, T_out), dtype=x.dtype, device=x.device)
    span = _span(w)
    _sliding_max_kernel[(T_out // span, B)](  # whole spans only
        x, y, T, T_out, x.stride(0), y.stride(0), W=w, SPAN=span, num_warps=8
    )
    return y
