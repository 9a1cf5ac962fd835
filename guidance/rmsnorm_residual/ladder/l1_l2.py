"""Ladder rung 2 (l1.py + L2.1, L2.2, L2.3): a persistent grid of programs that own whole row tiles.

h = bf16(x + residual);  y = bf16(h * rsqrt(mean(h^2) + eps) * weight)

Over l1.py:
- L2.1: one launch, each row tile loaded once into registers (BLOCK_N >= hidden) and kept there from
  the load to the last store; h is never re-read. l1.py already had this traffic (8 bytes / element);
  here it is the explicit structure of the persistent loop.
- L2.2: the grid is min(num_tiles, SMs x programs per SM), the SM count read from the device, and each
  program walks row tiles with a grid stride. The weight is loaded once per program, before the loop,
  and reused for every row it handles.
- L2.3: for short rows a tile holds ROWS_PER_TILE = 4096 // BLOCK_N rows (capped at 16), reduced along
  axis 1 to one rstd per row and masked against the row count.

Left for L3: prefetching the next tile inside the loop (here load -> reduce -> store is serialised in
each program), the warp count (the tutorials' heuristic, tile // 256 capped at 8, is kept), the
occupancy target (programs per SM from the 2048-thread limit, not from registers) and cache hints.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _add_rmsnorm_kernel(
    x_ptr,
    res_ptr,
    w_ptr,
    h_ptr,
    y_ptr,
    n_rows,
    n_cols,
    eps,
    stride_xm,
    stride_rm,
    stride_hm,
    stride_ym,
    num_tiles,
    ROWS_PER_TILE: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    num_progs = tl.num_programs(0)
    offs_n = tl.arange(0, BLOCK_N)
    offs_r = tl.arange(0, ROWS_PER_TILE)
    mask_n = offs_n < n_cols

    # weight: once per program, reused for every tile below
    w = tl.load(w_ptr + offs_n, mask=mask_n, other=0.0).to(tl.float32)

    for tile in range(pid, num_tiles, num_progs):
        offs_m = (tile * ROWS_PER_TILE + offs_r).to(tl.int64)
        mask = (offs_m < n_rows)[:, None] & mask_n[None, :]
        # read x and residual once: 4 bytes / element
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0)
        r = tl.load(res_ptr + offs_m[:, None] * stride_rm + offs_n[None, :], mask=mask, other=0.0)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
        # write h: 2 bytes / element
        tl.store(h_ptr + offs_m[:, None] * stride_hm + offs_n[None, :], h, mask=mask)

        hf = h.to(tl.float32)
        rstd = tl.rsqrt(tl.sum(hf * hf, axis=1) / n_cols + eps)
        y = hf * rstd[:, None] * w[None, :]
        # write y: 2 bytes / element
        tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)


_SM_COUNT = {}


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # interpreter: a small persistent grid still exercises the grid-stride loop
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


_MAX_THREADS_PER_SM = 2048  # the hardware's resident-thread limit on sm_90


def solution(x, residual, weight, eps):
    assert x.dim() == 2 and residual.shape == x.shape, "x and residual must be [rows, hidden]"
    n_rows, n_cols = x.shape
    assert weight.shape == (n_cols,) and weight.stride(0) == 1
    assert x.stride(1) == 1 and residual.stride(1) == 1, "rows must be contiguous"

    h = torch.empty_like(x)
    y = torch.empty_like(x)
    if n_rows == 0:
        return y, h

    block_n = triton.next_power_of_2(n_cols)
    rows_per_tile = max(1, min(16, 4096 // block_n))
    num_warps = min(max(rows_per_tile * block_n // 256, 1), 8)
    num_tiles = triton.cdiv(n_rows, rows_per_tile)
    programs_per_sm = max(1, _MAX_THREADS_PER_SM // (32 * num_warps))
    grid = (min(num_tiles, _num_sms(x.device) * programs_per_sm),)

    _add_rmsnorm_kernel[grid](
        x,
        residual,
        weight,
        h,
        y,
        n_rows,
        n_cols,
        float(eps),
        x.stride(0),
        residual.stride(0),
        h.stride(0),
        y.stride(0),
        num_tiles,
        ROWS_PER_TILE=rows_per_tile,
        BLOCK_N=block_n,
        num_warps=num_warps,
    )
    return y, h
