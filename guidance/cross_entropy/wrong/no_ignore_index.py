"""Correct online log-sum-exp, but ignore_index (-100) is not honoured.

The target is clamped into [0, V) so the gather stays in bounds, and every row gets
lse - x[clamped target]. Padding rows (target -100) must have loss exactly 0; here they get
lse - x[0], about 10, so those rows mismatch. Every workload has at least one padding row.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)


@triton.jit
def _ce_kernel(logits_ptr, targets_ptr, loss_ptr, n_cols, stride_row, BLOCK_V: tl.constexpr):
    # One program per row; reads the row once (n_cols * 2 bytes).
    row = tl.program_id(0)
    row_ptr = logits_ptr + row * stride_row.to(tl.int64)
    offs = tl.arange(0, BLOCK_V)
    m = float("-inf")
    s = 0.0
    for off in range(0, n_cols, BLOCK_V):
        cols = off + offs
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=float("-inf"), eviction_policy="evict_first").to(
            tl.float32
        )
        m_new = tl.maximum(m, tl.max(x, axis=0) * _LOG2E)
        s = s * tl.exp2(m - m_new) + tl.sum(tl.exp2(x * _LOG2E - m_new), axis=0)
        m = m_new
    # BUG: -100 is clamped to column 0 instead of producing a zero loss.
    tgt = tl.minimum(tl.maximum(tl.load(targets_ptr + row), 0), n_cols - 1)
    x_t = tl.load(row_ptr + tgt).to(tl.float32)
    tl.store(loss_ptr + row, (m + tl.log2(s)) * _LN2 - x_t)


def solution(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    rows, n_cols = logits.shape
    assert logits.stride(1) == 1 and targets.shape == (rows,)
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    _ce_kernel[(rows,)](logits, targets, loss, n_cols, logits.stride(0), BLOCK_V=8192, num_warps=16)
    return loss
