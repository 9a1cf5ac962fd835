"""Chunk scans in Triton, but the carries between chunks come from torch.logcumsumexp.

The kernel computes each chunk's log-sum-exp; the host then runs torch.logcumsumexp over the
[rows, chunks] aggregates to get the carries, and a second kernel applies them. The aggregates are
small, but the call is the very function the task forbids.
"""
# expect: static:forbidden-call

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)
CHUNK = 4096


@triton.jit
def _combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    e = tl.exp2(tl.minimum(m1, m2) - m)
    return m, tl.where(m1 >= m2, s1 + s2 * e, s2 + s1 * e)


@triton.jit
def _chunk_lse_kernel(x_ptr, agg_ptr, T, n_chunks, CHUNK: tl.constexpr):
    row, chunk = tl.program_id(0), tl.program_id(1)
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    x = tl.load(x_ptr + row.to(tl.int64) * T + offs, mask=offs < T, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    tl.store(agg_ptr + row * n_chunks + chunk, m + tl.log(tl.sum(tl.exp(x - m), axis=0)))


@triton.jit
def _apply_kernel(x_ptr, carry_ptr, y_ptr, T, n_chunks, CHUNK: tl.constexpr):
    row, chunk = tl.program_id(0), tl.program_id(1)
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    mask = offs < T
    x2 = tl.load(x_ptr + row.to(tl.int64) * T + offs, mask=mask, other=float("-inf")).to(tl.float32) * _LOG2E
    m_run, s_run = tl.associative_scan((x2, mask.to(tl.float32)), 0, _combine)
    # exclusive carry: the inclusive prefix of the previous chunk
    prev = tl.maximum(chunk - 1, 0)
    carry = tl.load(carry_ptr + row * n_chunks + prev) * _LOG2E
    carry = tl.where(chunk == 0, float("-inf"), carry)
    big = tl.maximum(m_run, carry)
    y2 = big + tl.log2(s_run * tl.exp2(m_run - big) + tl.exp2(carry - big))
    tl.store(y_ptr + row.to(tl.int64) * T + offs, (y2 * _LN2).to(y_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    rows, length = x.shape
    y = torch.empty_like(x)
    n_chunks = triton.cdiv(length, CHUNK)
    agg = torch.empty((rows, n_chunks), dtype=torch.float32, device=x.device)
    _chunk_lse_kernel[(rows, n_chunks)](x, agg, length, n_chunks, CHUNK=CHUNK)
    carry = torch.logcumsumexp(agg, dim=1)
    _apply_kernel[(rows, n_chunks)](x, carry, y, length, n_chunks, CHUNK=CHUNK, num_warps=8)
    return y
