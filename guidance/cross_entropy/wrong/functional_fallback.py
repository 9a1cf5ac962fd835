"""Launches a Triton kernel for the row max, then hands the real work to PyTorch.

The kernel is decoration: the loss comes from torch.nn.functional.cross_entropy, which is
exactly the reference and is forbidden (torch.nn.functional is on the harness's default list).
"""
# expect: static:forbidden-call

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _row_max_kernel(logits_ptr, max_ptr, n_cols, stride_row, BLOCK_V: tl.constexpr):
    # One program per row; reads the row once (n_cols * 2 bytes), writes 4 bytes.
    row = tl.program_id(0)
    row_ptr = logits_ptr + row * stride_row.to(tl.int64)
    offs = tl.arange(0, BLOCK_V)
    m = float("-inf")
    for off in range(0, n_cols, BLOCK_V):
        cols = off + offs
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(x, axis=0))
    tl.store(max_ptr + row, m)


def solution(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    rows, n_cols = logits.shape
    row_max = torch.empty(rows, dtype=torch.float32, device=logits.device)
    _row_max_kernel[(rows,)](logits, row_max, n_cols, logits.stride(0), BLOCK_V=4096, num_warps=8)
    # "stabilised" by the max we just computed; the shift cancels inside cross_entropy
    shifted = logits.float() - row_max[:, None]
    return F.cross_entropy(shifted, targets, reduction="none", ignore_index=-100)
