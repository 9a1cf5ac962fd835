"""Ladder rung 1 (plain + L1.1, L1.2): a chunked associative scan over (max, sum) pairs, the carry walked by one
program per row.

y[r, t] = log(sum_{k <= t} exp(x[r, k]))

Over plain.py:
- L1.1: a chunk is scanned in parallel with tl.associative_scan over pairs (m, s) meaning s * 2^m (x in log2
  units, masked lanes (-inf, 0)); two segments combine around M = max(m1, m2) with one exp2 of a non-positive
  argument, so nothing overflows or underflows on rows offset by hundreds.
- L1.2: each chunk of CHUNK = 1024 is summarised by its log-sum-exp (the aggregate); the carry, the
  log-add-exp fold of the aggregates to its left in fp32, is folded into every element of the chunk with one
  stable log-add-exp around max(carry, m).

Expected on an H200: the serial dependency is per chunk, not per element, and each chunk is a parallel scan with
coalesced loads, so the work per step is 1024 elements instead of one. It is still one program per row
walking its chunks in order (L2.1 spreads a row's chunks over programs): the 64-row 1M-column workload runs
only 64 programs.
"""

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)
CHUNK = 1024


@triton.jit
def _combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    e = tl.exp2(tl.minimum(m1, m2) - m)  # <= 1: the smaller side is scaled down
    return m, tl.where(m1 >= m2, s1 + s2 * e, s2 + s1 * e)


@triton.jit
def _logaddexp2(a, b):
    m = tl.maximum(a, b)
    return m + tl.log2(1.0 + tl.exp2(tl.minimum(a, b) - m))


@triton.jit
def _row_scan_kernel(x_ptr, y_ptr, T, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * T
    carry = tl.full([], float("-inf"), tl.float32)
    for start in range(0, T, CHUNK):
        offs = start + tl.arange(0, CHUNK)
        mask = offs < T
        x2 = tl.load(x_ptr + base + offs, mask=mask, other=float("-inf")).to(tl.float32) * _LOG2E
        m_run, s_run = tl.associative_scan((x2, mask.to(tl.float32)), 0, _combine)
        big = tl.maximum(m_run, carry)
        y2 = big + tl.log2(s_run * tl.exp2(m_run - big) + tl.exp2(carry - big))
        tl.store(y_ptr + base + offs, (y2 * _LN2).to(y_ptr.dtype.element_ty), mask=mask)
        m_agg = tl.max(x2, axis=0)
        carry = _logaddexp2(carry, m_agg + tl.log2(tl.sum(tl.exp2(x2 - m_agg), axis=0)))


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.dtype in (torch.float32, torch.bfloat16)
    x = x.contiguous()
    rows, length = x.shape
    y = torch.empty_like(x)
    if rows == 0 or length == 0:
        return y
    _row_scan_kernel[(rows,)](x, y, length, CHUNK=CHUNK)
    return y
