"""Wrong: masks A with a torch op on the host (fetched by name, so no static rule sees it), then runs a dense
Triton GEMM. Besides the forbidden op, it reads and writes the whole of A once more and multiplies the zero half.
"""
# expect: static:dynamic-attribute
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, N, BLOCK_K):
        k_idx = k + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k_idx[None, :] * stride_ak,
                    mask=(offs_m[:, None] < N) & (k_idx[None, :] < N), other=0.0)  # fmt: skip
        b = tl.load(b_ptr + k_idx[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(k_idx[:, None] < N) & (offs_n[None, :] < K), other=0.0)  # fmt: skip
        acc = tl.dot(a, b, acc)
    mask = (offs_m[:, None] < N) & (offs_n[None, :] < K)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty), mask)


def solution(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    N, K = B.shape
    lower = getattr(A, "tr" + "il")()
    C = torch.empty((N, K), dtype=A.dtype, device=A.device)
    grid = (triton.cdiv(N, 64), triton.cdiv(K, 64))
    matmul_kernel[grid](
        lower, B, C, N, K,
        lower.stride(0), lower.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
        BLOCK_M=64, BLOCK_N=64, BLOCK_K=64,
    )  # fmt: skip
    return C
