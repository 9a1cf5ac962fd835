"""Online log-sum-exp whose running sum is kept in bfloat16.

The max, the exponentials and each block's partial sum are fp32, but the running sum s is
stored back as bf16 after every block (a plausible "match the input dtype" slip). bf16 keeps 8
mantissa bits, so each of the ceil(V / 2048) roundings can move s by up to 2^-9 relative and
ln(s) by as much: the loss is off by ~1e-3..1e-2, far beyond the 2e-4 + 2e-5 * |loss| tolerance.
Everything else (masking, ignore_index, target gather) is right.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)


@triton.jit
def _ce_bf16_sum_kernel(logits_ptr, targets_ptr, loss_ptr, n_cols, stride_row, ignore_index, BLOCK_V: tl.constexpr):
    # One program per row; reads the row once (n_cols * 2 bytes).
    row = tl.program_id(0)
    row_ptr = logits_ptr + row * stride_row.to(tl.int64)
    tgt = tl.load(targets_ptr + row)
    valid = tgt != ignore_index
    offs = tl.arange(0, BLOCK_V)
    m = float("-inf")
    s = tl.full([], 0.0, tl.bfloat16)
    for off in range(0, n_cols, BLOCK_V):
        cols = off + offs
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0) * _LOG2E)
        p = tl.exp2(x * _LOG2E - m_new)
        # BUG: the accumulator is rounded to bf16 every block.
        s = (s.to(tl.float32) * tl.exp2(m - m_new) + tl.sum(p, axis=0)).to(tl.bfloat16)
        m = m_new
    x_t = tl.load(row_ptr + tgt, mask=valid, other=0.0).to(tl.float32)
    loss = (m + tl.log2(s.to(tl.float32))) * _LN2 - x_t
    tl.store(loss_ptr + row, tl.where(valid, loss, 0.0))


def solution(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    rows, n_cols = logits.shape
    assert logits.stride(1) == 1 and targets.shape == (rows,)
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    _ce_bf16_sum_kernel[(rows,)](logits, targets, loss, n_cols, logits.stride(0), -100, BLOCK_V=2048, num_warps=8)
    return loss
