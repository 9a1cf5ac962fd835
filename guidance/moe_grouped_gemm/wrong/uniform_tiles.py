"""Wrong: cuts the T sorted rows into uniform BLOCK_M tiles and multiplies each whole tile by one expert's weights.

The tempting simplification of a grouped GEMM: one M-tile grid over all rows (ceil(T / BLOCK_M) tiles) and, per
tile, the expert of its first row. But expert boundaries do not fall on tile boundaries: the rows of a tile past
the end of its first expert belong to the next one(s) and get the wrong weights. Only tiles that happen to lie
inside one expert are right.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _uniform_tile_kernel(
    x_ptr, w_ptr, y_ptr, offsets_ptr, T, N, K, E, stride_xm, stride_we, stride_wk, stride_ym,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_E: tl.constexpr,
):  # fmt: skip
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    e_idx = tl.arange(0, BLOCK_E)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=e_idx < E, other=2**30)
    e = tl.sum((ends <= pid_m * BLOCK_M).to(tl.int32), axis=0)  # the expert of the tile's first row only

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + e.to(tl.int64) * stride_we + offs_k[:, None] * stride_wk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(x_ptrs, mask=(offs_m[:, None] < T) & (offs_k[None, :] < K - k), other=0.0)
        b = tl.load(w_ptrs, mask=(offs_k[:, None] < K - k) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    y_ptrs = y_ptr + offs_m.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=(offs_m[:, None] < T) & (offs_n[None, :] < N))


def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, K = x.shape
    E, _, N = w.shape
    y = torch.empty((T, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(T, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _uniform_tile_kernel[grid](
        x, w, y, offsets, T, N, K, E, x.stride(0), w.stride(0), w.stride(1), y.stride(0),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, BLOCK_E=max(triton.next_power_of_2(E), 16),
    )  # fmt: skip
    return y
