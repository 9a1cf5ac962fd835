"""Ladder rung 0 (no guidance): the straight port of `torch.tril(A) @ B` into one Triton GEMM.

A tutorial-style matmul over a 2-D grid of 128 x 128 output tiles whose k-loop runs over all of N; the lower
triangle is applied by masking every A tile with k <= row at the load. Correct, fp32 accumulation, but it loads
and multiplies the all-zero upper half as well (2 N^2 K flops, all of A read).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def tril_matmul_kernel(
    a_ptr, b_ptr, c_ptr, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, N, BLOCK_K):
        k_idx = k + offs_k
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < N) & (k_idx[None, :] <= offs_m[:, None]), other=0.0)
        b = tl.load(b_ptrs, mask=(k_idx[:, None] < N) & (offs_n[None, :] < K), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < N) & (offs_n[None, :] < K))


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
