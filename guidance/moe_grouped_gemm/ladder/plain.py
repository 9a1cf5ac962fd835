"""Ladder rung 0 (no guidance): the obvious port of the reference, one Triton GEMM launch per expert.

The offsets are read on the host (one synchronisation) and each non-empty expert's row slice is multiplied by its
weights with a tutorial-style Triton matmul: 64 x 64 x 32 tiles, 4 warps, fp32 accumulator, row-major tile order.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(
    x_ptr,
    w_ptr,
    y_ptr,
    M,
    N,
    K,
    stride_xm,
    stride_wk,
    stride_ym,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_n
    pid_n = pid % num_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k), other=0.0)
        b = tl.load(w_ptrs, mask=(offs_k[:, None] < K - k) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    y_ptrs = y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, K = x.shape
    E, _, N = w.shape
    y = torch.empty((T, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    bounds = offsets.tolist()
    for e in range(E):
        start, end = bounds[e], bounds[e + 1]
        if end == start:
            continue
        rows = end - start
        grid = (triton.cdiv(rows, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
        _matmul_kernel[grid](
            x[start:end],
            w[e],
            y[start:end],
            rows,
            N,
            K,
            x.stride(0),
            w.stride(1),
            y.stride(0),
            BLOCK_M=BLOCK_M,
            BLOCK_N=BLOCK_N,
            BLOCK_K=BLOCK_K,
            num_warps=4,
        )
    return y
