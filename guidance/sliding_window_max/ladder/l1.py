"""Ladder rung 1 (plain + L1.1): van Herk / Gil-Werman prefix and suffix maxima, passed through memory.

y[b, t] = max(x[b, t : t + w]) for t in [0, T - w + 1)

Over plain.py:
- L1.1: cut each row into aligned segments of w. The window at t covers the tail of t's segment and the head of the
  next, so y[t] = max(h[t], g[t + w - 1]) with h the maximum from t to the end of its segment (a reverse max-scan)
  and g the maximum from the start of its segment to t (a forward max-scan): about 3 comparisons per element
  whatever w is, instead of w - 1 per output.

Without L2 the two steps are two kernels joined through memory. Kernel 1 owns BLOCK = max(1024, w) elements of a
row (whole segments, as a [BLOCK / w, w] tile whose rows are segments), runs both scans and stores h and g in x's
dtype (exact: maxima are inputs). Kernel 2 reads h[t] and g[t + w - 1] and stores their maximum. The scans run in
fp32 because the CPU interpreter cannot scan bf16; bf16 values round-trip exactly.

Traffic per element: kernel 1 reads x and writes h and g, kernel 2 reads both back and writes y: 5 passes where
the problem needs 2, in two launches.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def _segment_scans_kernel(x_ptr, h_ptr, g_ptr, T, stride_x, W: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < T
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=float("-inf")).to(tl.float32)
    # BLOCK is a multiple of W and starts on a segment boundary, so the tile's rows are whole segments
    seg = tl.reshape(x, [BLOCK // W, W])
    h = tl.reshape(tl.associative_scan(seg, 1, _max_combine, reverse=True), [BLOCK])
    g = tl.reshape(tl.associative_scan(seg, 1, _max_combine), [BLOCK])
    tl.store(h_ptr + row * T + offs, h.to(h_ptr.dtype.element_ty), mask=mask)
    tl.store(g_ptr + row * T + offs, g.to(g_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _combine_kernel(h_ptr, g_ptr, y_ptr, T, T_out, stride_y, W: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < T_out
    h = tl.load(h_ptr + row * T + offs, mask=mask, other=float("-inf"))
    # at a segment start the window is the segment itself: h alone (g there would reach into the next window)
    g_mask = mask & (offs % W != 0)
    g = tl.load(g_ptr + row * T + offs + W - 1, mask=g_mask, other=float("-inf"))
    tl.store(y_ptr + row * stride_y + offs, tl.maximum(h, g), mask=mask)


def solution(x: torch.Tensor, w: int) -> torch.Tensor:
    assert x.ndim == 2 and x.stride(1) == 1, "x must be [B, T] with unit column stride"
    B, T = x.shape
    assert 2 <= w <= 1024 and w & (w - 1) == 0 and w <= T, "w must be a power of two in [2, min(1024, T)]"
    T_out = T - w + 1
    y = torch.empty((B, T_out), dtype=x.dtype, device=x.device)
    if B == 0:
        return y
    h = torch.empty((B, T), dtype=x.dtype, device=x.device)
    g = torch.empty((B, T), dtype=x.dtype, device=x.device)

    block = max(1024, w)
    _segment_scans_kernel[(triton.cdiv(T, block), B)](x, h, g, T, x.stride(0), W=w, BLOCK=block)
    _combine_kernel[(triton.cdiv(T_out, block), B)](h, g, y, T, T_out, y.stride(0), W=w, BLOCK=block)
    return y
