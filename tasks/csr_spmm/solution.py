import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(row_ptr, col_idx, values, x):
    """Sparse (CSR) times dense: Y = A @ X.

    row_ptr: [M + 1] int32 or int64, non-decreasing, row_ptr[0] = 0, row_ptr[M] = nnz;
    col_idx: [nnz] same dtype as row_ptr, column ids in [0, K), sorted within a row, may repeat;
    values: [nnz] float32; x: [K, N] float32, contiguous.
    Row i of A holds values[row_ptr[i] : row_ptr[i+1]] at columns col_idx[row_ptr[i] : row_ptr[i+1]];
    rows may be empty. Return a new [M, N] float32 tensor Y = A @ X (an empty row gives a zero row).
    Do not modify the inputs.
    """
    raise NotImplementedError
