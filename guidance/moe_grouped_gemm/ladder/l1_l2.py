"""Ladder rung 2 (L1 + L2.1, L2.2): the grouped launch of l1.py with tile ownership and an L2-aware order.

Over l1.py: the flat (M-tile, N-tile) index is swizzled in groups of GROUP_M M-tiles (L2.2), so the programs that
run together share W[e] panels and X panels through L2 instead of each streaming its own from HBM. Each program
owns one output tile of one expert, its fp32 accumulator in registers over all of K and its rows masked at the
expert's end (L2.1, as in l1.py). Tiles stay tutorial-sized (64 x 64 x 32, 4 warps).
"""

import torch
import triton
import triton.language as tl


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
):
    e_idx = tl.arange(0, BLOCK_E)
    has_e = e_idx < E
    starts = tl.load(offsets_ptr + e_idx, mask=has_e, other=0)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=has_e, other=0)
    n_tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    tiles_end = tl.cumsum(n_tiles, axis=0)
    total_m = tl.sum(n_tiles, axis=0)

    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    if first_m >= total_m:
        return
    group_m = tl.minimum(total_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % group_m
    tile_n = (pid % per_group) // group_m

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
        a = tl.load(x_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < K - k), other=0.0)
        b = tl.load(w_ptrs, mask=(offs_k[:, None] < K - k) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    y_ptrs = y_ptr + offs_m.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, K = x.shape
    E, _, N = w.shape
    y = torch.empty((T, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = ((triton.cdiv(T, BLOCK_M) + E) * triton.cdiv(N, BLOCK_N),)
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
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        BLOCK_K=BLOCK_K,
        BLOCK_E=max(triton.next_power_of_2(E), 16),
        GROUP_M=8,
        num_warps=4,
    )
    return y
