"""Causal attention forward (FlashAttention-2 style): O = softmax(Q K^T / sqrt(D) + causal mask) V.

Design (one guidance item per idea):

* Online softmax (L1.1). Each query row walks its keys in BLOCK_N tiles carrying a running max `m`, a
  running sum `l` and an unnormalised fp32 accumulator `acc`; a new tile rescales `l` and `acc` by
  exp(m_old - m_new). The [S, S] scores never exist in memory; `acc / l` is taken once at the end.
* Causal tile skipping (L1.2). Query block [start_m, start_m + BLOCK_M) only visits keys < start_m +
  BLOCK_M: the tiles above the diagonal are never loaded nor multiplied, half the FLOPs of the square.
* Ownership (L2.1). One program per (query block, batch*head): the Q tile is loaded once and stays on
  chip, (m, l, acc) live in registers for the whole key loop, K/V stream through shared memory and O is
  written once, already normalised, in the input dtype.
* Launch order (L2.2). program_id(0) walks the query blocks of one head in reverse (heaviest first) and
  program_id(1) the heads, so the programs resident together share one head's K/V through L2, and the
  longest programs start first so the short ones fill the tail of the last wave.
* Tiles (L3.1). BLOCK_M = 128 queries; BLOCK_N = 64 keys; 8 warps for D = 128 (two warpgroups, 64 rows
  each; acc is 64 fp32 registers a thread), 4 warps for D = 64; 3 pipeline stages. Shared memory:
  3 x (K + V) tiles + Q, ~128 KB at D = 128.
* exp2 (L3.2). The softmax scale and log2(e) are folded into one multiplier, so a score becomes an
  exponent with one FMA and the exponential is a single MUFU.EX2; m and l are in log2 units. P is cast
  to the input dtype for the second tensor-core dot, which accumulates in fp32.
* Mask only the diagonal (L3.3). The key loop is two stages: the tiles strictly below the diagonal with
  no mask arithmetic at all, then the BLOCK_M / BLOCK_N diagonal tiles with the causal compare-select.
  When S is a multiple of BLOCK_M (EVEN) no load or store carries a bounds mask.

Memory traffic per call: Q read once and O written once (B*H*S*D*itemsize each); K and V tiles are read
by every query block at or below them, which is ~S/BLOCK_M re-reads served mostly from L2.

* Addressing. Q, K, V and O are taken contiguous, so one head stride (S * D) and one row stride (D) address
  all four and the program's head is program_id(1) times that stride (no batch / head division). On an H200
  (`python benchmarks/attention_designs.py --designs "expert (as shipped)" "body:"`, 2026-12-03 18:23 UTC)
  this kernel, at the same tiles, took 389.4 / 618.2 / 536.4 us on opt-1.3b-prefill-2k / llama3-8b-prefill-4k
  / llama3-8b-tp8-prefill-16k where the former one, with a stride per tensor and dimension, took 402.2 / 663.1
  / 573.0. Compiled for sm_90 it takes 220 / 167 registers a thread at D = 64 / 128 where the former took 255 /
  208 (`benchmarks/compile_check.py --resources`), consistent with K and V sharing one [BLOCK_N, D] offset
  tensor; which change is the gain (the shared stride or the dropped division) was not isolated.
"""

import math

import torch
import triton
import triton.language as tl

_LOG2E = 1.4426950408889634
# Score of a masked (future) key, in log2 units. Finite: exp2 of it is 0 and no inf - inf can make a NaN.
_MASKED = tl.constexpr(-1.0e6)


@triton.jit
def _attend_tiles(
    acc,
    l_i,
    m_i,
    q,
    k_base,
    v_base,
    stride_row,
    offs_m,
    offs_n,
    offs_d,
    lo,
    hi,
    seq_len,
    qk_scale,
    BLOCK_N: tl.constexpr,
    DIAGONAL: tl.constexpr,
    EVEN: tl.constexpr,
):
    """Run the online softmax over key tiles [lo, hi); DIAGONAL tiles get the causal mask. K and V rows share one
    row stride, so their [BLOCK_N, D] tiles are addressed by the same offsets."""
    k_ptrs = k_base + (lo + offs_n)[:, None] * stride_row + offs_d[None, :]
    v_ptrs = v_base + (lo + offs_n)[:, None] * stride_row + offs_d[None, :]
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        if DIAGONAL and not EVEN:
            in_bounds = (start_n + offs_n)[:, None] < seq_len
            k = tl.load(k_ptrs, mask=in_bounds, other=0.0)
        else:
            k = tl.load(k_ptrs)
        qk = tl.dot(q, tl.trans(k))
        if DIAGONAL:
            causal = offs_m[:, None] >= (start_n + offs_n)[None, :]
            qk = qk * qk_scale + tl.where(causal, 0.0, _MASKED)
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_new[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if DIAGONAL and not EVEN:
            v = tl.load(v_ptrs, mask=in_bounds, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
        k_ptrs += BLOCK_N * stride_row
        v_ptrs += BLOCK_N * stride_row
    return acc, l_i, m_i


@triton.jit
def flash_attn_causal_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    seq_len,
    stride_head,
    stride_row,
    qk_scale,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    EVEN: tl.constexpr,
    HEAVY_FIRST: tl.constexpr,
):
    """Q, K, V and O are contiguous [B, H, S, D]: one head stride (S * D) and one row stride (D) address all four."""
    # Heaviest query block first: block i has i + 1 diagonal-or-below tile rows of work.
    if HEAVY_FIRST:
        pid_m = tl.num_programs(0) - 1 - tl.program_id(0)
    else:
        pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * stride_head  # batch * heads flattened: no division
    start_m = pid_m * BLOCK_M

    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = q_ptr + head + offs_m[:, None] * stride_row + offs_d[None, :]
    if EVEN:
        q = tl.load(q_ptrs)
    else:
        q = tl.load(q_ptrs, mask=offs_m[:, None] < seq_len, other=0.0)

    m_i = tl.full([BLOCK_M], _MASKED, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    # Stage 1: key tiles entirely at or below every row of the block: no mask.
    acc, l_i, m_i = _attend_tiles(
        acc, l_i, m_i, q, k_ptr + head, v_ptr + head, stride_row, offs_m, offs_n, offs_d, 0, start_m, seq_len,
        qk_scale, BLOCK_N, False, EVEN,
    )  # fmt: skip
    # Stage 2: the diagonal tiles [start_m, start_m + BLOCK_M), masked; tiles beyond are never visited.
    acc, l_i, m_i = _attend_tiles(
        acc, l_i, m_i, q, k_ptr + head, v_ptr + head, stride_row, offs_m, offs_n, offs_d, start_m,
        start_m + BLOCK_M, seq_len, qk_scale, BLOCK_N, True, EVEN,
    )  # fmt: skip

    # Every row sees at least its own key, so l_i >= 1.
    out = acc / l_i[:, None]
    o_ptrs = o_ptr + head + offs_m[:, None] * stride_row + offs_d[None, :]
    if EVEN:
        tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty))
    else:
        tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_len)


def _config(seq_len: int, head_dim: int) -> tuple[int, int, int, int, bool]:
    """(BLOCK_M, BLOCK_N, num_warps, num_stages, heaviest query block first) for Hopper; the same at every
    seq_len so far (benchmarks/attention_designs.py sweeps the alternatives)."""
    if head_dim == 64:
        return 128, 64, 4, 3, True
    return 128, 64, 8, 3, True


def solution(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention forward for q, k, v [B, H, S, D] (bf16 or fp16, D in {64, 128})."""
    B, H, S, D = q.shape
    assert k.shape == q.shape and v.shape == q.shape and D in (64, 128)
    # one layout for all four tensors (a no-op for the contiguous tensors every workload passes)
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    BLOCK_M, BLOCK_N, num_warps, num_stages, heavy_first = _config(S, D)
    qk_scale = _LOG2E / math.sqrt(D)
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    flash_attn_causal_kernel[grid](
        q, k, v, o, S, S * D, D, qk_scale,
        HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, EVEN=S % BLOCK_M == 0, HEAVY_FIRST=heavy_first,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return o
