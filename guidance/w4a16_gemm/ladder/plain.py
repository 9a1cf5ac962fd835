"""Ladder rung 0 (plain): the reference's two steps as two Triton kernels for every M, no guidance.

Y = X @ W,  W[k, n] = (q[k, n] - 8) * scales[k // 128, n],  q packed two per byte along N (column 2j in the low
nibble of byte j, 2j + 1 in the high one).

Kernel 1 writes the whole fp16 weight W [K, N], as the reference's unpack and dequantise do: each output element
loads its byte (byte n // 2 of row k, so two neighbouring columns load the same byte), keeps the low or the high
nibble by the column's parity, and computes (q - 8) * scale in fp32, rounded to fp16 once (both factors are exact,
so this is the reference's rounding). Kernel 2 is a plain tiled GEMM in the style of the Triton tutorials: one
program per [BLOCK_M, BLOCK_N] tile of Y in row-major order, tl.dot over BLOCK_K steps with an fp32 accumulator,
one cast to fp16 at the store.

Traffic: the packed weight read once (K * N / 2 bytes), the fp16 W written (2 * K * N) and read again for every row
block of Y (2 * K * N each): in decode, 9x the weight bytes the fused kernel moves.
"""

import torch
import triton
import triton.language as tl

GROUP_SIZE = 128


@triton.jit
def _dequant_kernel(qw_ptr, s_ptr, w_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_SIZE: tl.constexpr):
    offs_k = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_k < K)[:, None] & (offs_n < N)[None, :]
    packed = tl.load(qw_ptr + offs_k[:, None] * (N // 2) + (offs_n // 2)[None, :], mask=mask, other=0)
    q = (packed >> ((offs_n % 2) * 4).to(tl.uint8)[None, :]) & 0xF
    s = tl.load(s_ptr + (offs_k // GROUP_SIZE)[:, None] * N + offs_n[None, :], mask=mask, other=0.0)
    w = (q.to(tl.float32) - 8.0) * s.to(tl.float32)
    tl.store(w_ptr + offs_k[:, None] * N + offs_n[None, :], w.to(tl.float16), mask=mask)


@triton.jit
def _gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m = tl.program_id(0) // num_n
    pid_n = tl.program_id(0) % num_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=(offs_m < M)[:, None] & (k + offs_k < K)[None, :], other=0.0)
        w = tl.load(w_ptrs, mask=(k + offs_k < K)[:, None] & (offs_n < N)[None, :], other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * N
    mask = (offs_m < M)[:, None] & (offs_n < N)[None, :]
    tl.store(y_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16), mask=mask)


def solution(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = X.shape
    N = qweight.shape[1] * 2
    assert qweight.shape[0] == K and K % GROUP_SIZE == 0 and scales.shape == (K // GROUP_SIZE, N), "W4A16 shapes"
    assert X.is_contiguous() and qweight.is_contiguous() and scales.is_contiguous(), "contiguous inputs"
    Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
    W = torch.empty((K, N), dtype=torch.float16, device=X.device)
    _dequant_kernel[(triton.cdiv(K, 64), triton.cdiv(N, 256))](
        qweight, scales, W, K, N, BLOCK_K=64, BLOCK_N=256, GROUP_SIZE=GROUP_SIZE
    )
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 64
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    _gemm_kernel[grid](X, W, Y, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return Y
