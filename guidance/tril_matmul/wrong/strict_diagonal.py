"""Wrong: the l1 design (k-loop stops at the diagonal, only the diagonal tile masked) with the diagonal
mask written as k < row instead of k <= row, so A[i, i] * B[i, :] is left out of every row: strictly-lower
times B. An off-by-one in the one place where the triangle is applied.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def tril_matmul_kernel(
    a_ptr, b_ptr, c_ptr, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    m = tl.program_id(0)
    n = tl.program_id(1)
    offs_m = m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    row_ok = offs_m[:, None] < N
    col_ok = offs_n[None, :] < K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, (m * BLOCK_M) // BLOCK_K):  # full tiles left of the diagonal block
        a = tl.load(a_ptrs, mask=row_ok, other=0.0)
        b = tl.load(b_ptrs, mask=col_ok, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    for d in range(0, BLOCK_M // BLOCK_K):  # the diagonal block, masked to k < row
        k_idx = m * BLOCK_M + d * BLOCK_K + offs_k
        a = tl.load(a_ptrs, mask=row_ok & (k_idx[None, :] < offs_m[:, None]), other=0.0)
        b = tl.load(b_ptrs, mask=(k_idx[:, None] < N) & col_ok, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=row_ok & col_ok)


def solution(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    N, K = B.shape
    C = torch.empty((N, K), dtype=A.dtype, device=A.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
    grid = (triton.cdiv(N, BLOCK_M), triton.cdiv(K, BLOCK_N))
    tril_matmul_kernel[grid](
        A, B, C, N, K,
        A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4, num_stages=3,
    )  # fmt: skip
    return C
