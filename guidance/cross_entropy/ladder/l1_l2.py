"""Ladder rung 2 (l1.py + L2.1, L2.2): one program per row for many rows, a split vocabulary for few rows.

loss[r] = logsumexp(x[r]) - x[r, t[r]]  (x = logits[r].float()), and 0 where t[r] == -100.

Over l1.py (whose online log-sum-exp and target / ignore handling are kept as they are):
- L2.1: many rows (at least 8 per SM): one small program (4 warps) per row, grid = rows, so many programs
  are resident per SM and the hardware back-fills SMs as rows finish. Row offsets are 64-bit.
- L2.2: few long rows (decode, RL log-probs): each row is split into BLOCK_V-aligned slices so that
  rows * n_split is about 4 programs per SM. Program (row, split) reduces its slice to a partial (m, s) in
  fp32; after writing it, it takes a ticket from a per-row atomic counter (acq_rel), and the last program of
  the row merges the partials, M = max m_i, S = sum s_i exp(m_i - M), reading them from L2 (.cg), and writes
  the loss. One launch plus one zero-filled workspace. The path is chosen on the host from the row count,
  the SM count and the row length.

Unchanged from l1.py (left for L3): BLOCK_V = 1024 with 4 warps on both paths (8 bf16 per thread per block),
tl.exp / tl.log with the max in natural units, default cache policy on the logit stream.
"""

import functools

import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100

ROWS_BLOCK_V = 1024  # many-rows path
ROWS_NUM_WARPS = 4
ROWS_PER_SM_TO_FILL = 8  # fewer rows than this per SM leaves too few bytes in flight
SPLIT_MIN_BLOCKS = 16  # rows shorter than this many SPLIT_BLOCK_V blocks (16k columns) are not worth merging
SPLIT_BLOCK_V = 1024  # few-rows path
SPLIT_NUM_WARPS = 4
SPLIT_PROGRAMS_PER_SM = 4


@triton.jit
def _lse_slice(row_ptr, start, stop, n_cols, load_mask, BLOCK_V: tl.constexpr):
    """Online log-sum-exp of row[start:stop]: sum_j exp(x_j) == s * exp(m).

    `load_mask` (a scalar) masks every load, so a row that need not be read moves no bytes
    (its m, s are then garbage and the caller discards them). Only the block that crosses
    n_cols is ragged; its missing columns load as -inf and add exp(-inf) = 0.
    """
    offs = tl.arange(0, BLOCK_V)
    m = float("-inf")
    s = 0.0
    for off in range(start, stop, BLOCK_V):
        cols = off + offs
        x = tl.load(row_ptr + cols, mask=(cols < n_cols) & load_mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    return m, s


@triton.jit
def _row_loss(m, s, x_t, valid):
    """m + ln(s) - x_t, or exactly 0 for an ignored row (a select, so NaN-safe)."""
    return tl.where(valid, m + tl.log(s) - x_t, 0.0)


@triton.jit
def _ce_rows_kernel(
    logits_ptr,
    targets_ptr,
    loss_ptr,
    n_cols,
    stride_row,
    ignore_index,
    BLOCK_V: tl.constexpr,
):
    # One program per row. Traffic: n_cols * 2 bytes read once (none for a padding row),
    # 8 bytes of target, 2 bytes of target logit, 4 bytes of loss.
    row = tl.program_id(0)
    tgt = tl.load(targets_ptr + row)
    valid = tgt != ignore_index
    row_ptr = logits_ptr + row * stride_row.to(tl.int64)
    # The loads below wait for tgt anyway (valid masks them), so gathering x_t first is
    # free and its latency hides under the stream.
    x_t = tl.load(row_ptr + tgt, mask=valid, other=0.0).to(tl.float32)
    m, s = _lse_slice(row_ptr, 0, n_cols, n_cols, valid, BLOCK_V)
    tl.store(loss_ptr + row, _row_loss(m, s, x_t, valid))


@triton.jit
def _ce_split_kernel(
    logits_ptr,
    targets_ptr,
    part_m_ptr,
    part_s_ptr,
    count_ptr,
    loss_ptr,
    n_cols,
    stride_row,
    chunk,
    n_split,
    ignore_index,
    BLOCK_V: tl.constexpr,
    BLOCK_S: tl.constexpr,
):
    # Few-rows path, one launch. Program (row, split) reduces columns
    # [split * chunk, min((split + 1) * chunk, n_cols)) to a partial (m, s): chunk * 2 bytes
    # read, 8 bytes written. The last program of the row to finish (atomic counter) merges the
    # row's n_split partials (n_split * 8 bytes, from L2) and writes the loss.
    row = tl.program_id(0)
    split = tl.program_id(1)
    tgt = tl.load(targets_ptr + row)
    row_ptr = logits_ptr + row * stride_row.to(tl.int64)
    start = split * chunk
    stop = tl.minimum(start + chunk, n_cols)
    # Not masked by the target: the logit loads issue at once instead of after a round trip.
    m, s = _lse_slice(row_ptr, start, stop, n_cols, True, BLOCK_V)
    tl.store(part_m_ptr + row * n_split + split, m)
    tl.store(part_s_ptr + row * n_split + split, s)

    valid = tgt != ignore_index
    # Issued before the atomic so the two round trips overlap (an L2 hit for all but one).
    x_t = tl.load(row_ptr + tgt, mask=valid, other=0.0).to(tl.float32)
    # acq_rel: our partial is visible before we count ourselves in, and the last arrival
    # sees every other program's partial. Branch-free: only the last program's loads and
    # store are unmasked, so the others move no bytes here.
    arrived = tl.atomic_add(count_ptr + row, 1, sem="acq_rel")
    is_last = arrived == n_split - 1
    offs = tl.arange(0, BLOCK_S)
    mask = (offs < n_split) & is_last
    # .cg: read the partials from L2, where the other SMs wrote them, never from a stale L1.
    m_i = tl.load(part_m_ptr + row * n_split + offs, mask=mask, other=float("-inf"), cache_modifier=".cg")
    s_i = tl.load(part_s_ptr + row * n_split + offs, mask=mask, other=0.0, cache_modifier=".cg")
    m_row = tl.max(m_i, axis=0)
    s_row = tl.sum(s_i * tl.exp(m_i - m_row), axis=0)
    tl.store(loss_ptr + row, _row_loss(m_row, s_row, x_t, valid), mask=is_last)


@functools.cache
def _num_sms(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def solution(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    assert logits.ndim == 2, "logits must be [rows, V]"
    rows, n_cols = logits.shape
    assert targets.shape == (rows,) and targets.dtype == torch.int64
    assert logits.stride(1) == 1 and targets.is_contiguous()
    loss = torch.empty(rows, dtype=torch.float32, device=logits.device)
    if rows == 0:
        return loss

    # The H200 has 132 SMs; the interpreter (CPU tensors) plans for it too.
    num_sms = _num_sms(logits.device.index or 0) if logits.is_cuda else 132
    n_blocks = triton.cdiv(n_cols, SPLIT_BLOCK_V)
    if rows >= ROWS_PER_SM_TO_FILL * num_sms or n_blocks < SPLIT_MIN_BLOCKS:
        _ce_rows_kernel[(rows,)](
            logits,
            targets,
            loss,
            n_cols,
            logits.stride(0),
            IGNORE_INDEX,
            BLOCK_V=ROWS_BLOCK_V,
            num_warps=ROWS_NUM_WARPS,
        )
        return loss

    # Split each row into BLOCK_V-aligned slices (only the row's last block is ragged) so
    # that rows * n_split fills the GPU.
    n_split = min(triton.cdiv(SPLIT_PROGRAMS_PER_SM * num_sms, rows), n_blocks)
    chunk = triton.cdiv(n_blocks, n_split) * SPLIT_BLOCK_V
    n_split = triton.cdiv(n_cols, chunk)
    # One zero-filled allocation: rows int32 counters, then the fp32 partials (m, then s).
    work = torch.zeros(rows * (1 + 2 * n_split), dtype=torch.int32, device=logits.device)
    count = work[:rows]
    partials = work[rows:].view(torch.float32)
    part_m, part_s = partials[: rows * n_split], partials[rows * n_split :]
    _ce_split_kernel[(rows, n_split)](
        logits,
        targets,
        part_m,
        part_s,
        count,
        loss,
        n_cols,
        logits.stride(0),
        chunk,
        n_split,
        IGNORE_INDEX,
        BLOCK_V=SPLIT_BLOCK_V,
        BLOCK_S=max(triton.next_power_of_2(n_split), 32),
        num_warps=SPLIT_NUM_WARPS,
    )
    return loss
