"""Wrong: one program per row that returns early on empty rows, into a torch.empty output.

Skipping empty rows "saves work", and graphs with self-loops have none, so the kernel looks right on
GCN inputs. But the output was allocated with torch.empty: an empty row of A must still produce a
zero row of Y, and here it keeps whatever the allocator left there.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def _spmm_row_kernel(row_ptr_ptr, col_ptr, val_ptr, x_ptr, y_ptr, n, SUB: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    start = tl.load(row_ptr_ptr + row)
    end = tl.load(row_ptr_ptr + row + 1)
    if end > start:  # the defect: an empty row is never written
        offs_n = tl.arange(0, BLOCK_N)
        mask_n = offs_n < n
        lanes = tl.arange(0, SUB)
        acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for k0 in range(start, end, SUB):
            k = k0 + lanes
            valid = k < end
            cols = tl.load(col_ptr + k, mask=valid, other=0)
            vals = tl.load(val_ptr + k, mask=valid, other=0.0)
            xs = tl.load(x_ptr + cols[:, None] * n + offs_n[None, :], mask=valid[:, None] & mask_n[None, :], other=0.0)
            acc += tl.sum(vals[:, None] * xs, axis=0)
        tl.store(y_ptr + row * n + offs_n, acc, mask=mask_n)


def solution(row_ptr, col_idx, values, x):
    m = row_ptr.numel() - 1
    n = x.shape[1]
    y = torch.empty((m, n), dtype=torch.float32, device=x.device)
    _spmm_row_kernel[(m,)](row_ptr, col_idx, values, x, y, n, SUB=32, BLOCK_N=triton.next_power_of_2(n))
    return y
