"""Wrong: splits the nonzeros into equal chunks (the right idea) but stores every row segment.

A row that crosses a chunk boundary gets one partial sum from each chunk it touches; storing them
instead of adding them (atomically, into a zeroed row) keeps only whichever partial sum lands last.
Short rows that sit inside one chunk are right, so the error only shows on rows that cross a chunk
boundary -- the long rows this design exists for.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _spmm_chunk_kernel(
    row_ptr_ptr,
    col_ptr,
    val_ptr,
    x_ptr,
    y_ptr,
    m,
    nnz,
    n,
    CHUNK: tl.constexpr,
    SUB: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    chunk = tl.program_id(0)
    offs_n = tl.arange(0, BLOCK_N)
    mask_n = offs_n < n
    lanes = tl.arange(0, SUB)
    c_start = chunk * CHUNK
    c_end = tl.minimum(c_start + CHUNK, nnz)
    # binary search: the last row whose start is <= c_start (rows may be empty)
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tl.load(row_ptr_ptr + mid) <= c_start:
            lo = mid
        else:
            hi = mid - 1
    row = lo
    pos = c_start
    while pos < c_end:
        r_end = tl.load(row_ptr_ptr + row + 1)
        seg_end = tl.minimum(r_end, c_end)
        acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for k0 in range(pos, seg_end, SUB):
            k = k0 + lanes
            valid = k < seg_end
            cols = tl.load(col_ptr + k, mask=valid, other=0)
            vals = tl.load(val_ptr + k, mask=valid, other=0.0)
            xs = tl.load(x_ptr + cols[:, None] * n + offs_n[None, :], mask=valid[:, None] & mask_n[None, :], other=0.0)
            acc += tl.sum(vals[:, None] * xs, axis=0)
        tl.store(y_ptr + row * n + offs_n, acc, mask=mask_n)  # the defect: partial rows overwrite each other
        pos = seg_end
        row += 1


def solution(row_ptr, col_idx, values, x):
    m = row_ptr.numel() - 1
    n = x.shape[1]
    nnz = col_idx.numel()
    y = torch.zeros((m, n), dtype=torch.float32, device=x.device)
    CHUNK = 128
    _spmm_chunk_kernel[(triton.cdiv(nnz, CHUNK),)](
        row_ptr, col_idx, values, x, y, m, nnz, n, CHUNK=CHUNK, SUB=32, BLOCK_N=triton.next_power_of_2(n)
    )
    return y
