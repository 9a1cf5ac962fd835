"""Wrong: dequantises the whole weight to fp16 in a Triton kernel, then multiplies with the @ operator (cuBLAS).

Besides leaving the GEMM to cuBLAS, it writes and re-reads a 2-byte-per-element copy of the weight: the traffic
the 4-bit format exists to avoid.
"""
# expect: static:matmul-operator

import torch
import triton
import triton.language as tl


@triton.jit
def dequant_kernel(qw_ptr, s_ptr, w_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_k = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_k[:, None] < K) & (offs_n[None, :] < N)
    packed = tl.load(qw_ptr + offs_k[:, None] * (N // 2) + offs_n[None, :] // 2, mask=mask, other=0)
    q = tl.where(offs_n[None, :] % 2 == 0, packed & 0xF, packed >> 4).to(tl.float32)
    s = tl.load(s_ptr + (offs_k[:, None] // 128) * N + offs_n[None, :], mask=mask, other=0.0).to(tl.float32)
    tl.store(w_ptr + offs_k[:, None] * N + offs_n[None, :], ((q - 8.0) * s).to(tl.float16), mask=mask)


def solution(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    K, N = qweight.shape[0], qweight.shape[1] * 2
    W = torch.empty((K, N), dtype=torch.float16, device=X.device)
    dequant_kernel[(triton.cdiv(K, 64), triton.cdiv(N, 64))](qweight, scales, W, K, N, BLOCK_K=64, BLOCK_N=64)
    return X @ W
