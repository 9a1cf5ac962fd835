"""Wrong: dequantises the weight once per weight shape and keeps the fp16 copy in a module-level cache.

The GEMM itself is a correct Triton kernel. Caching a dequantised weight looks like a free speed-up when a
benchmark calls one layer repeatedly, but the cache is keyed by shape, not by the weight's contents: the next call
with a different weight of the same shape (another layer, another seed) multiplies by the stale one.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl

_DEQUANTISED: dict[tuple[int, int, torch.device], torch.Tensor] = {}


@triton.jit
def dequant_kernel(qw_ptr, s_ptr, w_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_k = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_k[:, None] < K) & (offs_n[None, :] < N)
    packed = tl.load(qw_ptr + offs_k[:, None] * (N // 2) + offs_n[None, :] // 2, mask=mask, other=0)
    q = tl.where(offs_n[None, :] % 2 == 0, packed & 0xF, packed >> 4).to(tl.float32)
    s = tl.load(s_ptr + (offs_k[:, None] // 128) * N + offs_n[None, :], mask=mask, other=0.0).to(tl.float32)
    tl.store(w_ptr + offs_k[:, None] * N + offs_n[None, :], ((q - 8.0) * s).to(tl.float16), mask=mask)


@triton.jit
def matmul_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + offs_m[:, None] * K + (k + offs_k)[None, :], mask=offs_m[:, None] < M, other=0.0)
        w = tl.load(w_ptr + (k + offs_k)[:, None] * N + offs_n[None, :], mask=offs_n[None, :] < N, other=0.0)
        acc = tl.dot(x, w, acc)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(y_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16), mask=mask)


def solution(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = X.shape
    N = qweight.shape[1] * 2
    key = (K, N, X.device)
    if key not in _DEQUANTISED:
        W = torch.empty((K, N), dtype=torch.float16, device=X.device)
        dequant_kernel[(triton.cdiv(K, 64), triton.cdiv(N, 64))](qweight, scales, W, K, N, BLOCK_K=64, BLOCK_N=64)
        _DEQUANTISED[key] = W
    Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
    matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 64))](
        X, _DEQUANTISED[key], Y, M, N, K, BLOCK_M=16, BLOCK_N=64, BLOCK_K=64
    )
    return Y
