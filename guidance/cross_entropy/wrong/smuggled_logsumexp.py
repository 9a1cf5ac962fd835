"""Gathers the target logit in Triton but smuggles the log-sum-exp past the static rules.

`getattr(torch, "logsum" + "exp")` is torch.logsumexp (forbidden for this task) under a name no
static check can see; it runs an aten reduction outside Triton, which the runtime guard rejects.
The values would be right: it is the hiding of the real work that is the defect.
"""
# expect: static:dynamic-attribute
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import torch
import triton
import triton.language as tl


@triton.jit
def _finish_kernel(logits_ptr, targets_ptr, lse_ptr, loss_ptr, rows, stride_row, ignore_index, BLOCK_R: tl.constexpr):
    # loss = lse - x[t]: 4 + 8 + 2 bytes in, 4 bytes out per row.
    offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mask_r = offs_r < rows
    tgt = tl.load(targets_ptr + offs_r, mask=mask_r, other=ignore_index)
    valid = mask_r & (tgt != ignore_index)
    x_t = tl.load(logits_ptr + offs_r.to(tl.int64) * stride_row + tgt, mask=valid, other=0.0).to(tl.float32)
    lse = tl.load(lse_ptr + offs_r, mask=mask_r, other=0.0)
    tl.store(loss_ptr + offs_r, tl.where(valid, lse - x_t, 0.0), mask=mask_r)


def solution(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    rows, n_cols = logits.shape
    lse = getattr(torch, "logsum" + "exp")(logits.float(), dim=-1)
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    BLOCK_R = 128
    _finish_kernel[(triton.cdiv(rows, BLOCK_R),)](
        logits, targets, lse, loss, rows, logits.stride(0), -100, BLOCK_R=BLOCK_R, num_warps=4
    )
    return loss
