"""Wrong: a Triton kernel only casts A to fp32, and C comes from the @ operator outside any kernel."""
# expect: static:matmul-operator

import torch
import triton
import triton.language as tl


@triton.jit
def upcast_kernel(a_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask).to(tl.float32), mask=mask)


def solution(A: torch.Tensor) -> torch.Tensor:
    M, N = A.shape
    Af = torch.empty((M, N), dtype=torch.float32, device=A.device)
    BLOCK = 1024
    upcast_kernel[(triton.cdiv(M * N, BLOCK),)](A, Af, M * N, BLOCK=BLOCK)
    return (Af.T @ Af).contiguous()
