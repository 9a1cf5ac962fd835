"""Wrong: expands row_ptr to COO row ids in Triton, then multiplies with a torch sparse tensor.

The expansion kernel is real work, but the product itself is handed to torch.sparse (cuSPARSE on the
GPU) through torch.sparse_coo_tensor(...) @ x. Sparse constructors are forbidden in this task: the
static checks reject it.
"""
# expect: static:forbidden-call

import torch
import triton
import triton.language as tl


@triton.jit
def _row_ids_kernel(row_ptr_ptr, rows_ptr, MAX_LEN: tl.constexpr):
    row = tl.program_id(0)
    start = tl.load(row_ptr_ptr + row)
    end = tl.load(row_ptr_ptr + row + 1)
    for k0 in range(start, end, MAX_LEN):
        k = k0 + tl.arange(0, MAX_LEN)
        tl.store(rows_ptr + k, tl.zeros([MAX_LEN], dtype=tl.int64) + row, mask=k < end)


def solution(row_ptr, col_idx, values, x):
    m = row_ptr.numel() - 1
    rows = torch.empty(col_idx.numel(), dtype=torch.int64, device=x.device)
    _row_ids_kernel[(m,)](row_ptr, rows, MAX_LEN=128)
    indices = torch.stack([rows, col_idx.to(torch.int64)])
    a = torch.sparse_coo_tensor(indices, values, size=(m, x.shape[0]))
    return a @ x
