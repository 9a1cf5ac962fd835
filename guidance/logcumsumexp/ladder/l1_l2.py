"""Ladder rung 2 (l1.py + L2.1, L2.2): one pass over memory, a row's chunks spread over programs and joined by a
decoupled look-back.

y[r, t] = log(sum_{k <= t} exp(x[r, k]))

Over l1.py (same (max, sum) scan and carry fold):
- L2.1: one program per (row, chunk) tile, taken in the order of an atomic ticket so every tile it waits on has
  started. It scans its tile, publishes the tile's aggregate at once, walks back over the row's earlier tiles
  folding aggregates until it meets a published inclusive prefix, publishes its own inclusive prefix and stores
  y. x is read once and y written once; the 64-row 1M-column workload becomes 65536 tiles instead of 64 programs.
  With at least 2 rows per SM the rows alone fill the GPU, and l1.py's program per row walks its chunks instead.
- L2.2: a tile's state is one int64 word, flag << 32 | bits(value), published with one tl.atomic_xchg (release)
  and polled with tl.atomic_add(ptr, 0) (acquire): flag and value are seen together, with no fence.

Expected on an H200: the row-serial chunk walk of l1.py is replaced by a grid that fills the GPU, with one stream
through memory. Left for L3: the tile is 1024 elements on the default 4 warps (4x as many look-back steps and
status words as 4096-element tiles) and the loads carry no streaming hint.
"""

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)
_AGGREGATE = tl.constexpr(1)
_INCLUSIVE = tl.constexpr(2)
CHUNK = 1024


@triton.jit
def _combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    e = tl.exp2(tl.minimum(m1, m2) - m)  # <= 1
    return m, tl.where(m1 >= m2, s1 + s2 * e, s2 + s1 * e)


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
    x = tl.load(x_ptr + base + offs, mask=mask, other=float("-inf"))
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


@triton.jit
def _row_scan_kernel(x_ptr, y_ptr, T, CHUNK: tl.constexpr):
    # l1.py's program per row: its chunks in order, the prefix so far carried in a register
    base = tl.program_id(0).to(tl.int64) * T
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


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # the interpreter: two rows take the look-back, five the row walk
    return torch.cuda.get_device_properties(device).multi_processor_count


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.is_contiguous() and x.dtype in (torch.float32, torch.bfloat16)
    rows, length = x.shape
    y = torch.empty_like(x)
    if rows == 0 or length == 0:
        return y
    if rows >= 2 * _num_sms(x.device):
        _row_scan_kernel[(rows,)](x, y, length, CHUNK=CHUNK)
        return y
    n_chunks = triton.cdiv(length, CHUNK)
    # one zero-filled int64 workspace: a status word per tile, then the ticket counter
    work = torch.zeros(rows * n_chunks + 1, dtype=torch.int64, device=x.device)
    status, ticket = work[:-1], work[-1:].view(torch.int32)
    _lcse_kernel[(rows * n_chunks,)](x, y, status, ticket, length, n_chunks, CHUNK=CHUNK)
    return y
