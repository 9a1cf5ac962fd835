"""Ladder rung 0 (plain): a sequential online log-sum-exp along each row, rows in parallel lanes. No guidance.

y[r, t] = log(sum_{k <= t} exp(x[r, k]))

A program owns BLOCK_R rows and walks t = 0 .. T-1 one column at a time, keeping per row the running maximum m
and the running sum s of exp(x - m): m' = max(m, x), s' = s * exp(m - m') + exp(x - m'), y = m' + log s'. This is
stable for any offset, but it is a serial loop of T dependent steps: no parallelism along the row, strided
one-element loads per row per step, and only cdiv(rows, BLOCK_R) programs (4 for the 64-row 1M-column
workload).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sequential_lcse_kernel(x_ptr, y_ptr, rows, T, BLOCK_R: tl.constexpr):
    offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mask = offs_r < rows
    base = offs_r.to(tl.int64) * T
    m = tl.full([BLOCK_R], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_R], dtype=tl.float32)
    for t in range(0, T):
        x = tl.load(x_ptr + base + t, mask=mask, other=0.0).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
        tl.store(y_ptr + base + t, (m + tl.log(s)).to(y_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.dtype in (torch.float32, torch.bfloat16)
    x = x.contiguous()
    rows, length = x.shape
    y = torch.empty_like(x)
    if rows == 0 or length == 0:
        return y
    block_r = 16
    _sequential_lcse_kernel[(triton.cdiv(rows, block_r),)](x, y, rows, length, BLOCK_R=block_r)
    return y
