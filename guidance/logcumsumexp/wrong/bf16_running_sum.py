"""The expert's scan with the running sum rounded to bfloat16 at every combine.

A "match the storage dtype" slip: bf16 keeps 8 mantissa bits, so once the running sum is a few hundred
times a single term, new terms round away and the sum stalls. log(s) then lags the true prefix by
units, far outside the fp32 tolerance.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)
_AGGREGATE = tl.constexpr(1)
_INCLUSIVE = tl.constexpr(2)
CHUNK = 4096
NUM_WARPS = 8


@triton.jit
def _combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    e = tl.exp2(tl.minimum(m1, m2) - m)  # <= 1
    s = tl.where(m1 >= m2, s1 + s2 * e, s2 + s1 * e)
    return m, s.to(tl.bfloat16).to(tl.float32)  # the running sum kept in bf16


@triton.jit
def _logaddexp2(a, b):
    m = tl.maximum(a, b)
    return m + tl.log2(1.0 + tl.exp2(tl.minimum(a, b) - m))


@triton.jit
def _pack(flag, value):
    low = value.to(tl.int32, bitcast=True).to(tl.uint32).to(tl.int64)
    return (flag.to(tl.int64) << 32) | low


@triton.jit
def _lcse_kernel(x_ptr, y_ptr, status_ptr, ticket_ptr, T, n_chunks, CHUNK: tl.constexpr):
    tile = tl.atomic_add(ticket_ptr, 1)
    row = tile // n_chunks
    chunk = tile % n_chunks
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    mask = offs < T
    base = row.to(tl.int64) * T
    x = tl.load(x_ptr + base + offs, mask=mask, other=float("-inf"), eviction_policy="evict_first")
    x2 = x.to(tl.float32) * _LOG2E
    m_run, s_run = tl.associative_scan((x2, mask.to(tl.float32)), 0, _combine)

    # the chunk's aggregate in log2 units
    m_agg = tl.max(x2, axis=0)
    agg = m_agg + tl.log2(tl.sum(tl.exp2(x2 - m_agg), axis=0))
    status = status_ptr + row * n_chunks
    carry = tl.full([], float("-inf"), tl.float32)
    if chunk == 0:
        tl.atomic_xchg(status, _pack(tl.full([], _INCLUSIVE, tl.int32), agg), sem="release")
    else:
        tl.atomic_xchg(status + chunk, _pack(tl.full([], _AGGREGATE, tl.int32), agg), sem="release")
        j = chunk - 1
        going = tl.full([], 1, tl.int32)
        while going != 0:
            word = tl.atomic_add(status + j, 0, sem="acquire")
            flag = (word >> 32).to(tl.int32)
            value = word.to(tl.int32).to(tl.float32, bitcast=True)
            ready = flag != 0
            carry = tl.where(ready, _logaddexp2(value, carry), carry)
            going = tl.where(ready & (flag == _INCLUSIVE), 0, 1)
            j = tl.where(ready & (flag == _AGGREGATE), j - 1, j)
        tl.atomic_xchg(status + chunk, _pack(tl.full([], _INCLUSIVE, tl.int32), _logaddexp2(carry, agg)), sem="release")

    # y = log2(carry_lin + s_run * 2^m_run), formed around M = max(carry, m_run)
    big = tl.maximum(m_run, carry)
    y2 = big + tl.log2(s_run * tl.exp2(m_run - big) + tl.exp2(carry - big))
    tl.store(y_ptr + base + offs, (y2 * _LN2).to(y_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.is_contiguous() and x.dtype in (torch.float32, torch.bfloat16)
    rows, length = x.shape
    y = torch.empty_like(x)
    if rows == 0 or length == 0:
        return y
    n_chunks = triton.cdiv(length, CHUNK)
    # one zero-filled int64 workspace: a status word per tile, then the ticket counter
    work = torch.zeros(rows * n_chunks + 1, dtype=torch.int64, device=x.device)
    status, ticket = work[:-1], work[-1:].view(torch.int32)
    _lcse_kernel[(rows * n_chunks,)](x, y, status, ticket, length, n_chunks, CHUNK=CHUNK, num_warps=NUM_WARPS)
    return y
