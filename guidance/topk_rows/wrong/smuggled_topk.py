"""A Triton kernel upcasts the logits to fp32; the selection itself is torch.topk reached through getattr.

The name is assembled at run time so that no static rule sees it; the runtime guard sees the forbidden
function called inside solution() and rejects it. (torch.topk's tie order is unspecified as well, but the
call is the defect.)
"""
# expect: static:dynamic-attribute
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import torch
import triton
import triton.language as tl


@triton.jit
def _upcast_kernel(x_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)


def solution(logits: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    B, V = logits.shape
    wide = torch.empty((B, V), dtype=torch.float32, device=logits.device)
    _upcast_kernel[(triton.cdiv(B * V, 1024),)](logits, wide, B * V, BLOCK=1024)
    select = getattr(torch, "to" + "pk")
    values, indices = select(wide, k, dim=1)
    return values.to(logits.dtype), indices
