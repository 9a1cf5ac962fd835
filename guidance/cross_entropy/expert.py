"""Cross-entropy over a large vocabulary with one online log-sum-exp pass over the logits.

loss[r] = logsumexp(x[r]) - x[r, t[r]]  (x = logits[r].float()), and 0 where t[r] == -100.

The problem is a pure stream: every logit is read once (rows * V * 2 bytes) and reduced to
two fp32 scalars per row, so the kernel is bound by HBM bandwidth (~4.3 TB/s on an H200)
and the work per element must stay small enough to hide under the loads:

* One pass, never materialising softmax. Each program keeps a running max m and a running
  sum s = sum 2^(x*log2e - m) in fp32; when a block raises the max, s is rescaled by
  2^(m_old - m_new) (one scalar exp2 per block). All exponentials are exp2 with the
  log2(e) factor folded into one FMA per element, so an element costs a convert, an FMA,
  one MUFU.EX2 and two reduction steps: at ~2.2e12 elements/s the EX2 unit is about half
  busy, hidden under the memory stream.
* The target logit is a single 2-byte gather per row, issued so that its latency overlaps
  other work, not a compare-and-select over all V columns.
* Many rows (training): one program per row, grid = rows. Programs are small (4 warps,
  BLOCK_V = 2048: 16 bf16 = two 16-byte loads per thread per block, 32 registers), so up to
  16 are resident per SM, 64 KB of loads in flight per SM, ~3x what Little's law asks for
  at 4.3 TB/s, and the hardware back-fills finished rows. Measured on an H200 (triton 3.6)
  this beats a persistent grid of 4 x 16-warp programs per SM striding over the rows
  (0.94 vs 0.80 of SOL on 4096 x 128256). Traffic: rows * V * 2 bytes read, rows * 8
  (targets) + rows * 4 (loss); one launch. Harness (CUDA events) on an H200: 94% of SOL on
  llama2-8k, 96% on llama3-4k, 92% on qwen2-2k.
* Few rows (decode, RL log-probs: fewer than 8 rows per SM) with long rows: one program
  per row would leave the GPU mostly idle and each program latency-bound on a 512 KB row.
  The vocabulary is split into BLOCK_V-aligned slices so that rows * n_split ~ 4 programs
  per SM; each program reduces its slice to a partial (m, s) (rows * V * 2 bytes read,
  rows * n_split * 8 bytes written), then takes a ticket from a per-row atomic counter; the
  last program of a row merges the partials, M = max m_i, S = sum s_i 2^(m_i - M), from L2
  (rows * n_split * 8 bytes) and writes the loss. One launch plus one small zero-filled
  workspace. For 16 x 256000 (8 MB, ~1.9 us at SOL) the chain of dependent memory round
  trips (logits, atomic, partials) and the launch put the floor near 10 us: measured 11.7 us
  under CUDA-graph replay (16% of SOL), 18.6 us with CUDA events (host launch overhead of the
  allocation plus the launch shows), against 73 us for one program per row.
* Padding rows (target -100) on the many-rows path mask their loads off entirely: no bytes
  are moved for them. On the split path the logits are loaded unconditionally so that the
  loads need not wait for the target. Either way the loss is written as exactly 0.

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fraction, bound, expert latency and SOL time are from that run's suite.json.
- gemma-decode-16: 15.1% of SOL, bound by HBM; expert 11.8 us (standard error 3.4 us), SOL 1.8 us.
  Profile (docs/runs/2026-12-03-h200-profiles/cross_entropy__gemma-decode-16.txt, the same expert code):
  `_ce_split_kernel` 7.5 us; DRAM 1.09 TB/s, 23% of peak; latency-bound (memory 23%, SM 27%); ncu "only 0.5 full
  waves"; grid (16, 32) x 256 threads, 32 registers, occupancy 45% of 100% possible.
  Why: 8 MB is read by 512 programs, each a short chain of dependent memory round trips (its target, its slice of
  the row, its partial, the row's atomic counter, and for the last program the merge from L2). The model charges no
  launch and no latency. The harness's time also holds the launches and the zero-filled workspace, which the profile
  does not time. A 1.8 us floor is not reachable through a launch and a few round trips on this chip. Half a wave at
  23% of DRAM and the separate fill launch are the expert's: slices of one block per program and a workspace that
  needs no zeroing are untried (docs/suite.md, "Workloads under 40% of SOL, and why (profiled)").
"""

import functools

import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100
_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)

# Both kernels compile to 32 registers per thread (ptxas, sm_90a).
ROWS_BLOCK_V = 2048  # many-rows path: 4 warps x 16 bf16 per thread
ROWS_NUM_WARPS = 4
ROWS_PER_SM_TO_FILL = 8  # fewer rows than this per SM leaves too few bytes in flight
SPLIT_MIN_BLOCKS = 4  # rows shorter than this many SPLIT_BLOCK_V blocks are not worth merging
SPLIT_BLOCK_V = 4096  # few-rows path: 8 warps x 16 bf16 per thread
SPLIT_NUM_WARPS = 8
SPLIT_PROGRAMS_PER_SM = 4


@triton.jit
def _lse2_slice(row_ptr, start, stop, n_cols, load_mask, BLOCK_V: tl.constexpr):
    """Online log-sum-exp of row[start:stop] in base 2: sum_j 2^(x_j*log2e) == s * 2^m.

    `load_mask` (a scalar) masks every load, so a row that need not be read moves no bytes
    (its m, s are then garbage and the caller discards them). Only the block that crosses
    n_cols is ragged; its missing columns load as -inf and add exp2(-inf) = 0.
    """
    offs = tl.arange(0, BLOCK_V)
    m = float("-inf")
    s = 0.0
    for off in range(start, stop, BLOCK_V):
        cols = off + offs
        # Each logit is read exactly once: evict_first keeps the stream from pushing
        # targets and partials out of L2.
        x = tl.load(
            row_ptr + cols, mask=(cols < n_cols) & load_mask, other=float("-inf"), eviction_policy="evict_first"
        ).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0) * _LOG2E)
        p = tl.exp2(x * _LOG2E - m_new)
        s = s * tl.exp2(m - m_new) + tl.sum(p, axis=0)
        m = m_new
    return m, s


@triton.jit
def _row_loss(m, s, x_t, valid):
    """ln(s * 2^m) - x_t, or exactly 0 for an ignored row (a select, so NaN-safe)."""
    return tl.where(valid, (m + tl.log2(s)) * _LN2 - x_t, 0.0)


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
    m, s = _lse2_slice(row_ptr, 0, n_cols, n_cols, valid, BLOCK_V)
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
    m, s = _lse2_slice(row_ptr, start, stop, n_cols, True, BLOCK_V)
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
    s_row = tl.sum(s_i * tl.exp2(m_i - m_row), axis=0)
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
