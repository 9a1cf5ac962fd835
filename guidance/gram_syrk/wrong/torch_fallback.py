"""Wrong: a Triton kernel only casts A to fp32; the product itself is a torch matmul fetched with getattr.

The string is assembled at run time so that no static rule sees a matmul call; the runtime guard sees the aten
mm op running inside solution() and rejects it.
"""
# expect: static:dynamic-attribute
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

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
    product = getattr(torch, "mat" + "mul")
    return product(Af.T, Af).contiguous()
