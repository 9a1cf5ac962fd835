"""Sliding-window maximum with the van Herk / Gil-Werman trick: ~3 comparisons per element for any w.

y[t] = max(x[t : t + w]). Cut the row into aligned segments of w. A window starting at t covers the
tail of t's segment and the head of the next one, so y[t] = max(h[t], g[t + w - 1]) with h the suffix
maximum within a segment and g the prefix maximum within a segment: a backward and a forward max-scan
plus one max per output, instead of w - 1 comparisons per output.

* One program owns SPAN consecutive outputs of one row (SPAN a multiple of w, so whole segments). It
  loads x[o0 : o0 + SPAN] (A) and x[o0 + w - 1 : o0 + w - 1 + SPAN] (G), both as [SPAN / w, w] tiles
  whose rows are segments. h is a reverse max-scan of A along the rows. Row r of G starts at the last
  element of segment r and continues into segment r + 1; with its first column set to -inf, a forward
  max-scan of G gives at [r, j] the maximum of x over [(r + 1) w, o0 + r w + j + w - 1], which is
  exactly g[t + w - 1] for t = o0 + r w + j (and -inf for j = 0, where the window is segment r).
* Traffic: A and G overlap in all but w - 1 elements, and G's tail is the next program's A, so each
  element crosses HBM about once (the rest hits L1/L2); y is written once. Both scans run in
  registers (in-thread, then warp shuffles).

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fraction, bound, expert latency and SOL time are from that run's suite.json.
- seq-features-pool64-bf16: 36.0% of SOL, bound by HBM; expert 80.4 us, SOL 29.0 us.
  Profile (docs/runs/2026-12-03-h200-night/profiles/sliding_window_max__seq-features-pool64-bf16.txt, the same
  expert code): `_sliding_max_kernel` 78.8 us; DRAM 1.44 TB/s, 30% of peak; memory 93% of peak, with ncu pointing at
  L1; SM 69%; 48 registers, occupancy 60% of 62% possible.
  Why: the busy unit is the L1 load path, not HBM. Each element is loaded twice (the span and its copy shifted by
  w - 1), the second time from L1, and the scans' shuffles keep L1 busy too (docs/suite.md, "Workloads under 40% of
  SOL in the seven re-timed tasks, profiled again (call 4)").
"""

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


_NUM_WARPS = 4


def _span(w: int) -> int:
    # Two segments and 2048 elements per program on 4 warps: the halo re-read (w - 1) stays L1/L2 traffic, and
    # small programs keep up to 12 a SM in flight. Measured on an H200 (2026-12-03): at w = 1024, spans of 8w on
    # 8 warps took 179.8 us against 105.5 here; at w = 64 and 256 the two were within 2%.
    return max(2048, 2 * w)


def solution(x: torch.Tensor, w: int) -> torch.Tensor:
    assert x.ndim == 2 and x.stride(1) == 1
    B, T = x.shape
    assert 2 <= w <= 1024 and w & (w - 1) == 0 and w <= T
    T_out = T - w + 1
    y = torch.empty((B, T_out), dtype=x.dtype, device=x.device)
    span = _span(w)
    _sliding_max_kernel[(triton.cdiv(T_out, span), B)](
        x, y, T, T_out, x.stride(0), y.stride(0), W=w, SPAN=span, num_warps=_NUM_WARPS
    )
    return y
