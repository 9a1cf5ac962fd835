"""Ladder rung 0 (plain): C = A^T A as a generic tiled Triton matmul of the views A.T and A, no guidance.

The obvious port of `Af.T @ Af`: a textbook tiled GEMM kernel (as in the Triton matmul tutorial, with one
fixed config) applied to the operands A^T [N, M] and A [M, N]. A.T is a strided view, so nothing is copied:
its tiles are loaded through its strides. One program per 64 x 64 output tile on an NT x NT grid, each
walking all M rows in BLOCK_K = 32 steps with an fp32 accumulator (tl.dot on fp16/bf16 tiles), and
storing its tile once.

Work and traffic: all NT^2 tiles are computed, so about twice the problem's N(N+1)M flops; each program
streams two column blocks of A over all M rows (A comes from HBM once per tile column/row at best, the rest
from L2); C written once. There is no split of M: for N = 256 the grid is 16 programs.
"""

import torch
import triton
import triton.language as tl

_BLOCK_M = 64
_BLOCK_N = 64
_BLOCK_K = 32
_NUM_WARPS = 4
_NUM_STAGES = 3


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """C[M, N] = A[M, K] @ B[K, N] in fp32, one BLOCK_M x BLOCK_N tile per program."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def solution(A: torch.Tensor) -> torch.Tensor:
    """C = A^T A as a new contiguous float32 [N, N] tensor."""
    assert A.dim() == 2 and A.dtype in (torch.float16, torch.bfloat16)
    M, N = A.shape
    C = torch.empty((N, N), dtype=torch.float32, device=A.device)
    At = A.t()  # [N, M] view: the left operand, read through its strides
    grid = (triton.cdiv(N, _BLOCK_M), triton.cdiv(N, _BLOCK_N))
    matmul_kernel[grid](
        At,
        A,
        C,
        N,
        N,
        M,
        At.stride(0),
        At.stride(1),
        A.stride(0),
        A.stride(1),
        C.stride(0),
        C.stride(1),
        BLOCK_M=_BLOCK_M,
        BLOCK_N=_BLOCK_N,
        BLOCK_K=_BLOCK_K,
        num_warps=_NUM_WARPS,
        num_stages=_NUM_STAGES,
    )
    return C
