"""Wrong: imports the task's reference and returns its answer; a copy kernel makes it look like Triton work."""
# expect: static:calls-reference

import torch
import triton
import triton.language as tl
from reference import reference


@triton.jit
def copy_kernel(src_ptr, dst_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    q_ref, scale = reference(x)
    q = torch.empty_like(q_ref)
    copy_kernel[(triton.cdiv(q.numel(), 1024),)](q_ref, q, q.numel(), BLOCK=1024)
    return q, scale
