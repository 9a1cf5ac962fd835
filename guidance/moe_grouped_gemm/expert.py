"""MoE grouped GEMM: Y[rows of e] = X[rows of e] @ W[e] for all experts in one launch, bf16 in, fp32 accumulate.

Design (one guidance item per idea):

* One grouped GEMM (L1.1). The E per-expert products are one problem over a flattened tile space: expert e
  contributes ceil(count_e / BLOCK_M) M-tiles (none when it owns no rows), each crossed with the N-tiles. One launch
  covers all experts, instead of E launches of small GEMMs that each under-fill the GPU (Qwen3-30B-A3B: 128 GEMMs
  of ~256 rows), and nothing is padded to a common capacity.
* The schedule is built on the device from the offsets (L1.2). The host only knows an upper bound on the M-tile
  count, ceil(T / BLOCK_M) + E (each expert adds at most one partial tile), and launches that many; every program
  loads the E+1 offsets, forms the per-expert tile counts and their prefix sum (tl.cumsum) and finds its expert by
  counting the experts whose tiles all come before its own. Programs past the last real tile return at once. No
  host sync: the offsets are never read on the CPU.
* Tile ownership (L2.1). A program owns one BLOCK_M x BLOCK_N tile of Y for one expert. Its rows are a contiguous
  slice of X (the rows are sorted by expert: no gather), the weights a [K, BLOCK_N] panel of W[e]; the fp32
  accumulator stays in registers for the whole K loop and Y is written once, in bf16. Rows past the expert's end
  are masked on load and store, so a tile never reads or writes the next expert's rows.
* Launch order (L2.2). The flat M-tile index is swizzled in groups of GROUP_M: the programs running together are
  GROUP_M M-tiles (of the same expert, mostly: its tiles are adjacent) times a sweep of N-tiles, so each W[e]
  panel comes from HBM about once and from L2 for the other M-tiles of the group, and each X panel likewise.
* Hopper tiles (L3.1, L3.2). 128 x 128 x 64 tiles, 4 warps, 4 stages (32 KB of bf16 operands per stage, 128 KB of
  shared memory), tl.dot on bf16 with an fp32 accumulator; 64-row tiles when experts average fewer than 128 rows
  (decode), where a 128-row tile would be mostly empty. K is masked only when it is not a multiple of BLOCK_K
  (EVEN_K), so the main loop's loads are unmasked along K and stay 16-byte vectors.

Memory traffic per call: X read once per N-tile sweep (from L2 after the first), every W[e] once from HBM (from L2
for the other M-tiles of a group), Y written once: close to the T*K + E*K*N + T*N elements of the problem.
"""

import torch
import triton
import triton.language as tl

_GROUP_M = 8


@triton.jit
def _grouped_gemm_kernel(
    x_ptr,
    w_ptr,
    y_ptr,
    offsets_ptr,
    N,
    K,
    E,
    stride_xm,
    stride_we,
    stride_wk,
    stride_ym,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    BLOCK_E: tl.constexpr,
    GROUP_M: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    # Schedule from the offsets: expert e owns M-tiles tiles_end[e] - n_tiles[e] .. tiles_end[e] - 1.
    e_idx = tl.arange(0, BLOCK_E)
    has_e = e_idx < E
    starts = tl.load(offsets_ptr + e_idx, mask=has_e, other=0)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=has_e, other=0)
    n_tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    tiles_end = tl.cumsum(n_tiles, axis=0)
    total_m = tl.sum(n_tiles, axis=0)

    # Grouped swizzle over (flat M-tile, N-tile) so that GROUP_M M-tiles share W[e] panels in L2.
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    if first_m >= total_m:
        return  # the grid is an upper bound on the tile count
    group_m = tl.minimum(total_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % group_m
    tile_n = (pid % per_group) // group_m

    # The expert of this M-tile: the number of experts whose tiles all lie before it.
    e = tl.sum((tiles_end <= tile_m).to(tl.int32), axis=0)
    mine = e_idx == e
    row_start = tl.sum(tl.where(mine, starts + (tile_m - (tiles_end - n_tiles)) * BLOCK_M, 0), axis=0)
    row_end = tl.sum(tl.where(mine, ends, 0), axis=0)

    offs_m = row_start + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < row_end
    mask_n = offs_n < N
    x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + e.to(tl.int64) * stride_we + offs_k[:, None] * stride_wk + offs_n[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(x_ptrs, mask=mask_m[:, None], other=0.0)
            b = tl.load(w_ptrs, mask=mask_n[None, :], other=0.0)
        else:
            a = tl.load(x_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < K - k), other=0.0)
            b = tl.load(w_ptrs, mask=(offs_k[:, None] < K - k) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk

    # Y written once, rounded to bf16 once; rows of the next expert are never touched.
    y_ptrs = y_ptr + offs_m.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def _config(T: int, E: int) -> tuple[int, int, int, int, int]:
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) for Hopper, by the average rows per expert."""
    block_m = 128 if T >= 128 * E else 64
    return block_m, 128, 64, 4, 4


def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    assert x.dim() == 2 and w.dim() == 3 and offsets.dim() == 1
    T, K = x.shape
    E, K_w, N = w.shape
    assert K_w == K and offsets.numel() == E + 1
    assert x.stride(1) == 1 and w.stride(2) == 1 and offsets.is_contiguous()
    y = torch.empty((T, N), dtype=x.dtype, device=x.device)
    if T == 0 or N == 0:
        return y

    block_m, block_n, block_k, num_warps, num_stages = _config(T, E)
    # Upper bound on the M-tiles: every expert adds at most one partial tile to ceil(T / BLOCK_M).
    max_tiles_m = triton.cdiv(T, block_m) + E
    grid = (max_tiles_m * triton.cdiv(N, block_n),)
    _grouped_gemm_kernel[grid](
        x,
        w,
        y,
        offsets,
        N,
        K,
        E,
        x.stride(0),
        w.stride(0),
        w.stride(1),
        y.stride(0),
        BLOCK_M=block_m,
        BLOCK_N=block_n,
        BLOCK_K=block_k,
        BLOCK_E=max(triton.next_power_of_2(E), 16),
        GROUP_M=_GROUP_M,
        EVEN_K=K % block_k == 0,
        num_warps=num_warps,
        num_stages=num_stages,
    )
    return y
