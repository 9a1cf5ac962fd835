"""Ladder rung 1 (plain + L1.1, L1.2): radix select of the k-th largest key, a stable gather, then order only k.

values, indices = the k largest logits of each row, descending, equal values by ascending column.

Over plain.py:
- L1.1: each logit maps to a 32-bit key whose unsigned order is the float order (flip every bit of a negative,
  the sign bit of a positive). The k-th largest key is fixed one byte at a time, most significant first: a
  256-bin tl.histogram of the current byte over the elements matching the bytes fixed so far, then the largest
  byte with at least k_rem candidates at or above it. bf16 needs two such passes (its low 16 key bits are zero),
  fp32 four. Nothing is sorted.
- L1.2: a gather pass collects the winners, every key above the threshold and the first k_rem equal to it in
  column order (slots from a running tl.cumsum), which is the set a stable descending sort keeps. Only these k
  are ordered: k maxima over a K_PAD-wide tile of (value key << 32 | 0x7FFFFFFF - column) int64 keys, which is
  value-descending and column-ascending in one order.

Without L2 the work is laid out plainly: one program per row (grid = B, so more rows are in flight than L2 holds
at the large vocabularies and a pass's re-read of the row can come from HBM), and the gathered columns go to a
scratch tensor of their own that a second kernel orders. Blocks of 4096 at the default 4 warps.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _radix_key(x):
    """fp32 -> uint32 whose unsigned order is the float order."""
    bits = x.to(tl.uint32, bitcast=True)
    return bits ^ tl.where((bits >> 31) != 0, 0xFFFFFFFF, 0x80000000)


@triton.jit
def _select_kernel(
    x_ptr, scratch_ptr, V, stride_row, K_SEL: tl.constexpr, N_DIGITS: tl.constexpr, BLOCK_V: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    row_ptr = x_ptr + row * stride_row
    offs = tl.arange(0, BLOCK_V)
    bins = tl.arange(0, 256)
    prefix = tl.zeros([], dtype=tl.uint32)  # the bytes of the threshold fixed so far
    k_rem = tl.full([], K_SEL, tl.int32)  # how many winners the candidates matching the prefix must supply
    for dgt in tl.static_range(N_DIGITS):
        shift = 24 - 8 * dgt
        hist = tl.zeros([256], dtype=tl.int32)
        for off in range(0, V, BLOCK_V):
            cols = off + offs
            mask = cols < V
            u = _radix_key(tl.load(row_ptr + cols, mask=mask, other=0.0).to(tl.float32))
            if dgt > 0:
                mask = mask & ((u >> (shift + 8)) == prefix)
            hist += tl.histogram(((u >> shift) & 255).to(tl.int32), 256, mask=mask)
        # at_or_above[d]: candidates whose byte is >= d; the digit is the largest d with enough of them
        at_or_above = tl.sum(hist, axis=0) - tl.cumsum(hist, axis=0) + hist
        d_star = tl.max(tl.where(at_or_above >= k_rem, bins, 0), axis=0)
        k_rem -= tl.sum(tl.where(bins > d_star, hist, 0), axis=0)
        prefix = (prefix << 8) | d_star.to(tl.uint32)
    thresh = prefix << (32 - 8 * N_DIGITS)

    # keys above the threshold take slots [0, K_SEL - k_rem), the first k_rem keys equal to it the rest
    n_gt = tl.zeros([], dtype=tl.int32)
    n_eq = tl.zeros([], dtype=tl.int32)
    for off in range(0, V, BLOCK_V):
        cols = off + offs
        mask = cols < V
        u = _radix_key(tl.load(row_ptr + cols, mask=mask, other=0.0).to(tl.float32))
        is_gt = mask & (u > thresh)
        is_eq = mask & (u == thresh)
        pos_gt = n_gt + tl.cumsum(is_gt.to(tl.int32), axis=0) - 1
        pos_eq = n_eq + tl.cumsum(is_eq.to(tl.int32), axis=0) - 1
        dst = tl.where(is_gt, pos_gt, K_SEL - k_rem + pos_eq)
        tl.store(scratch_ptr + row * K_SEL + dst, cols, mask=is_gt | (is_eq & (pos_eq < k_rem)))
        n_gt += tl.sum(is_gt.to(tl.int32), axis=0)
        n_eq += tl.sum(is_eq.to(tl.int32), axis=0)


@triton.jit
def _order_kernel(x_ptr, scratch_ptr, val_ptr, idx_ptr, stride_row, K_SEL: tl.constexpr, K_PAD: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    slot = tl.arange(0, K_PAD)
    idx = tl.load(scratch_ptr + row * K_SEL + slot, mask=slot < K_SEL, other=0)
    x = tl.load(x_ptr + row * stride_row + idx, mask=slot < K_SEL, other=0.0).to(tl.float32)
    bits = x.to(tl.int32, bitcast=True)
    skey = bits ^ ((bits >> 31) & 0x7FFFFFFF)  # signed int order == float order
    packed = (skey.to(tl.int64) << 32) | (0x7FFFFFFF - idx).to(tl.int64)
    packed = tl.where(slot < K_SEL, packed, -9223372036854775807 - 1)
    for j in tl.static_range(K_SEL):
        best = tl.max(packed, axis=0)
        packed = tl.where(packed == best, -9223372036854775807 - 1, packed)
        s = (best >> 32).to(tl.int32)
        value = (s ^ ((s >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True)
        tl.store(val_ptr + row * K_SEL + j, value.to(val_ptr.dtype.element_ty))
        tl.store(idx_ptr + row * K_SEL + j, (0x7FFFFFFF - best.to(tl.int32)).to(tl.int64))


def solution(logits: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    assert logits.ndim == 2 and logits.stride(1) == 1, "logits must be [B, V] with unit column stride"
    assert logits.dtype in (torch.bfloat16, torch.float32), "bf16 or fp32 logits"
    B, V = logits.shape
    assert 1 <= k <= 64 and k <= V and V < 2**31, "1 <= k <= min(64, V)"
    values = torch.empty((B, k), dtype=logits.dtype, device=logits.device)
    indices = torch.empty((B, k), dtype=torch.int64, device=logits.device)
    if B == 0:
        return values, indices
    scratch = torch.empty((B, k), dtype=torch.int32, device=logits.device)
    n_digits = 2 if logits.dtype == torch.bfloat16 else 4
    _select_kernel[(B,)](logits, scratch, V, logits.stride(0), K_SEL=k, N_DIGITS=n_digits, BLOCK_V=4096)
    k_pad = max(16, triton.next_power_of_2(k))
    _order_kernel[(B,)](logits, scratch, values, indices, logits.stride(0), K_SEL=k, K_PAD=k_pad)
    return values, indices
