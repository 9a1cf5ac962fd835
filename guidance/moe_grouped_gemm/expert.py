"""MoE grouped GEMM: Y[rows of e] = X[rows of e] @ W[e] for all experts in one launch, bf16 in, fp32 accumulate.

Design (one guidance item per idea):

* One grouped GEMM (L1.1). The E per-expert products are one problem over a flattened tile space: expert e
  contributes ceil(count_e / BLOCK_M) M-tiles (none when it owns no rows), each crossed with the N-tiles. One launch
  covers all experts, instead of E launches of small GEMMs that each under-fill the GPU (Qwen3-30B-A3B: 128 GEMMs
  of ~256 rows) and each end in a partly idle wave, and nothing is padded to a common capacity.
* The schedule is built on the device from the offsets (L1.2). Every program loads the E+1 offsets, forms the
  per-expert tile counts and their prefix sum (tl.cumsum) and finds a tile's expert by counting the experts whose
  tiles all come before it. The host launches one program per SM; each walks the tile space with a stride of the
  grid and stops at the device-side total. No host sync: the offsets are never read on the CPU.
* Tile ownership (L2.1). A tile is BLOCK_M x BLOCK_N of Y for one expert. Its rows are a contiguous slice of X (the
  rows are sorted by expert: no gather), the weights a [K, BLOCK_N] panel of W[e]; the fp32 accumulator stays in
  registers for the whole K loop and Y is written once, in bf16. Rows past the expert's end are zero-filled on load
  and clipped on store (the descriptors' shapes end at the expert's last row), so no tile touches the next expert.
* Launch order (L2.2). The flat M-tile index is swizzled in groups of GROUP_M: the tiles in flight together are
  GROUP_M M-tiles (of the same expert, mostly: its tiles are adjacent) times a sweep of N-tiles, so each W[e]
  panel comes from HBM about once and from L2 for the other M-tiles of the group, and each X panel likewise.
* Hopper tiles and loads (L3.1, L3.2). 128 x 256 x 64 tiles on 8 warps (two warpgroups, each a 64 x 256 wgmma:
  ~25% fewer operand bytes per FLOP than 128 x 128), 3 stages of 48 KB; 64-row tiles on 4 warps when experts
  average fewer than 128 rows. X, W[e] and Y go through device-side TMA tensor descriptors (one thread issues a
  whole tile copy: no per-thread address arithmetic), the tile loop is warp-specialised (a producer warp issues the
  loads, the consumer warpgroups only run wgmma) and flattened with the K loop, so the next tile's loads overlap the
  current tile's store; Y is stored as two halves so the staging buffer leaves room for the 3 stages. Measured on
  an H200 by benchmarks/moe_designs.py against 16 other tilings, schedules and load paths. Where TMA's alignment
  rules fail (K or N not a multiple of 8, unaligned tensors) the same schedule runs with masked pointer loads.

Memory traffic per call: X read once per N-tile sweep (from L2 after the first), every W[e] once from HBM (from L2
for the other M-tiles of a group), Y written once: close to the T*K + E*K*N + T*N elements of the problem.
"""

import functools

import torch
import triton
import triton.language as tl

_GROUP_M = 8
_INTERPRETER_SMS = 4  # few "SMs" on the CPU, so that every persistent program walks several tiles


@triton.jit
def _grouped_gemm_kernel(
    x_ptr, w_ptr, y_ptr, offsets_ptr, N, K, E, stride_xm, stride_we, stride_wk, stride_ym, num_programs,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_E: tl.constexpr,
    GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, TMA: tl.constexpr,
):  # fmt: skip
    # Schedule from the offsets: expert e owns M-tiles tiles_end[e] - n_tiles[e] .. tiles_end[e] - 1.
    e_idx = tl.arange(0, BLOCK_E)
    has_e = e_idx < E
    starts = tl.load(offsets_ptr + e_idx, mask=has_e, other=0)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=has_e, other=0)
    n_tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    tiles_end = tl.cumsum(n_tiles, axis=0)
    total_m = tl.sum(n_tiles, axis=0)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n

    for tile in tl.range(tl.program_id(0), total_m * num_n, num_programs, flatten=True, warp_specialize=TMA):
        # Grouped swizzle over (flat M-tile, N-tile) so that GROUP_M M-tiles share W[e] panels in L2.
        first_m = (tile // per_group) * GROUP_M
        group_m = tl.minimum(total_m - first_m, GROUP_M)
        tile_m = first_m + (tile % per_group) % group_m
        n0 = ((tile % per_group) // group_m) * BLOCK_N
        # The expert of this M-tile: the number of experts whose tiles all lie before it.
        e = tl.sum((tiles_end <= tile_m).to(tl.int32), axis=0)
        mine = e_idx == e
        row_start = tl.sum(tl.where(mine, starts + (tile_m - (tiles_end - n_tiles)) * BLOCK_M, 0), axis=0)
        row_end = tl.sum(tl.where(mine, ends, 0), axis=0)

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        if TMA:
            # Shapes end at the expert's last row: rows past it are zero-filled on load and clipped on store.
            x_desc = tl.make_tensor_descriptor(
                x_ptr, shape=[row_end, K], strides=[stride_xm, 1], block_shape=[BLOCK_M, BLOCK_K]
            )
            w_desc = tl.make_tensor_descriptor(
                w_ptr + e.to(tl.int64) * stride_we, shape=[K, N], strides=[stride_wk, 1], block_shape=[BLOCK_K, BLOCK_N]
            )
            y_desc = tl.make_tensor_descriptor(
                y_ptr, shape=[row_end, N], strides=[stride_ym, 1], block_shape=[BLOCK_M, BLOCK_N // 2]
            )
            for k in range(0, K, BLOCK_K):
                acc = tl.dot(x_desc.load([row_start, k]), w_desc.load([k, n0]), acc)
            # Y written once, rounded to bf16 once, as two halves (a smaller staging buffer in shared memory)
            acc0, acc1 = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
            y_desc.store([row_start, n0], acc0.to(y_ptr.dtype.element_ty))
            y_desc.store([row_start, n0 + BLOCK_N // 2], acc1.to(y_ptr.dtype.element_ty))
        else:
            offs_m = row_start + tl.arange(0, BLOCK_M)
            offs_n = n0 + tl.arange(0, BLOCK_N)
            offs_k = tl.arange(0, BLOCK_K)
            mask_m = offs_m < row_end
            mask_n = offs_n < N
            x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm + offs_k[None, :]
            w_ptrs = w_ptr + e.to(tl.int64) * stride_we + offs_k[:, None] * stride_wk + offs_n[None, :]
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
            y_ptrs = y_ptr + offs_m.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
            tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def _config(T: int, E: int) -> tuple[int, int, int, int, int]:
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) for Hopper, by the average rows per expert."""
    if T >= 128 * E:
        return 128, 256, 64, 8, 3
    return 64, 256, 64, 4, 4  # small experts (decode): a 128-row tile would be mostly empty rows


@functools.cache
def _sm_count(device: torch.device) -> int:
    return torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else _INTERPRETER_SMS


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
    # TMA needs 16-byte-aligned bases (each W[e] too) and row strides
    tma = all(t.data_ptr() % 16 == 0 and t.stride(0) % 8 == 0 for t in (x, y)) and w.stride(0) % 8 == 0
    tma = tma and w.data_ptr() % 16 == 0 and w.stride(1) % 8 == 0
    if tma:
        # device-side tensor descriptors need global scratch memory per launch: the allocator only allocates
        triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=x.device))
    # An upper bound on the tiles (every expert adds at most one partial M-tile): no more programs than that.
    max_tiles = (triton.cdiv(T, block_m) + E) * triton.cdiv(N, block_n)
    programs = min(_sm_count(x.device), max_tiles)
    _grouped_gemm_kernel[(programs,)](
        x, w, y, offsets, N, K, E, x.stride(0), w.stride(0), w.stride(1), y.stride(0), programs,
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, BLOCK_E=max(triton.next_power_of_2(E), 16),
        GROUP_M=_GROUP_M, EVEN_K=K % block_k == 0, TMA=tma, num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return y
