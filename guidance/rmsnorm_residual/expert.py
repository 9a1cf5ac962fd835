"""Fused residual add + RMSNorm in one pass over memory.

h = bf16(x + residual);  y = bf16(h * rsqrt(mean(h^2) + eps) * weight)

The problem is purely memory-bound: per element we read x and residual (2 + 2 bytes) and write h and
y (2 + 2 bytes) against ~5 flops, so the only goal is to touch each byte exactly once at full HBM
bandwidth. Bytes: 8 * rows * hidden + 2 * hidden; e.g. 16384 x 4096 moves 537 MB, 125 us at 4.3 TB/s.

Design:
- One pass. A program owns whole rows: it loads a row of x and residual into registers (BLOCK_N is
  the next power of two of hidden, the tail masked), forms h in fp32, rounds it to bf16 and stores it,
  then squares the *rounded* h (what a bf16 residual stream holds), reduces the row in fp32 and
  scales by rsqrt -- one reduction, no second mean pass, nothing re-read from memory.
- Persistent grid: 2 programs of 16 warps per SM (1024 threads), each walking row tiles with a grid
  stride. The weight is loaded once per program and reused for every tile, instead of once per row.
  Both fit an SM's registers at hidden 4096-8192 (57-64 a thread), but at hidden 16384 the kernel
  takes 128 registers a thread and one program fits an SM: the second program of each SM waits for
  the first (compiled for sm_90 by `benchmarks/compile_check.py --resources --all-workloads`).
- Software pipelining in registers: while a tile is reduced and stored, the loads of the program's
  next tile are already in flight, so the SM's memory pipe never idles on the reduction. This is what
  makes the persistent grid pay: without it, a persistent loop serialises load -> reduce -> store and
  ran ~5% slower than one-program-per-row on the H200; with it, it is 1-2% faster.
- For small hidden sizes a tile holds several rows (ROWS_PER_TILE * BLOCK_N ~ 4096 elements), so each
  program still has >= 16 KB of loads in flight; for hidden >= 4096 one row per tile.
- 16 warps for every tile of >= 4096 elements: 8-32 elements per thread per tensor, i.e. 16-byte
  vector accesses (rows are contiguous and Triton specialises the row strides as multiples of 16).
- Cache hints: the weight is kept in L2 (evict_last) since every program reads it. x and residual
  are left at the default policy: marking them evict_first measured 3-5% slower on the H200.

Measured on an H200 (triton 3.6, torch 2.11), SOL at 4.3 TB/s:
16384x4096 139 us (90%), 8192x7168 121 us (90%), 8192x8192 138 us (91%), 4096x16384 136 us (92%).
For comparison, torch.add(x, residual) alone (3 of the 4 passes) streams at ~95% of 4.3 TB/s.
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

    # weight: read once per program (2 * hidden bytes, from L2 after the first program), reused below
    w = tl.load(w_ptr + offs_n, mask=mask_n, other=0.0, eviction_policy="evict_last").to(tl.float32)

    # the grid never exceeds num_tiles, so this program's first tile exists
    offs_m = (pid * ROWS_PER_TILE + offs_r).to(tl.int64)
    mask = (offs_m < n_rows)[:, None] & mask_n[None, :]
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0)
    r = tl.load(res_ptr + offs_m[:, None] * stride_rm + offs_n[None, :], mask=mask, other=0.0)

    for tile in range(pid, num_tiles, num_progs):
        # issue the next tile's loads first (fully masked off past the last tile: no traffic), so they
        # are in flight while this tile is reduced and written
        next_tile = tile + num_progs
        offs_m_next = (next_tile * ROWS_PER_TILE + offs_r).to(tl.int64)
        mask_next = ((offs_m_next < n_rows) & (next_tile < num_tiles))[:, None] & mask_n[None, :]
        # read x and residual once: 4 bytes / element
        x_next = tl.load(x_ptr + offs_m_next[:, None] * stride_xm + offs_n[None, :], mask=mask_next, other=0.0)
        r_next = tl.load(res_ptr + offs_m_next[:, None] * stride_rm + offs_n[None, :], mask=mask_next, other=0.0)

        # h is rounded to the storage dtype before the norm sees it, as a bf16 residual stream is
        h = (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
        # write h: 2 bytes / element
        tl.store(h_ptr + offs_m[:, None] * stride_hm + offs_n[None, :], h, mask=mask)

        hf = h.to(tl.float32)
        # masked lanes are 0 and add nothing; divide by the true width, not BLOCK_N
        sum_sq = tl.sum(hf * hf, axis=1)
        rstd = tl.rsqrt(sum_sq / n_cols + eps)
        y = hf * rstd[:, None] * w[None, :]
        # write y: 2 bytes / element -- 8 bytes per element in all, the minimum
        tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)

        x = x_next
        r = r_next
        offs_m = offs_m_next
        mask = mask_next


_SM_COUNT = {}


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 2  # interpreter: a small persistent grid still exercises the grid-stride loop
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


# resident threads per SM the persistent grid aims for: the hardware allows 2048, but at ~64 registers
# per thread the 64K-entry register file holds 1024; 2 x 16 warps measured best on the H200
_THREADS_PER_SM = 1024


def _config(n_rows: int, n_cols: int, num_sms: int):
    """(BLOCK_N, ROWS_PER_TILE, num_warps, programs) for a [n_rows, n_cols] input on num_sms SMs."""
    block_n = triton.next_power_of_2(n_cols)
    # several short rows per tile so that every program keeps ~4096 elements per tensor in flight
    rows_per_tile = max(1, min(16, 4096 // block_n))
    tile = rows_per_tile * block_n
    num_warps = 16 if tile >= 4096 else 4
    programs_per_sm = max(1, _THREADS_PER_SM // (32 * num_warps))
    programs = min(triton.cdiv(n_rows, rows_per_tile), num_sms * programs_per_sm)
    return block_n, rows_per_tile, num_warps, programs


def solution(x, residual, weight, eps):
    assert x.dim() == 2 and residual.shape == x.shape, "x and residual must be [rows, hidden]"
    n_rows, n_cols = x.shape
    assert weight.shape == (n_cols,), "weight must be [hidden]"
    assert x.dtype == residual.dtype == weight.dtype
    assert x.stride(1) == 1 and residual.stride(1) == 1 and weight.stride(0) == 1, "rows must be contiguous"

    h = torch.empty_like(x)
    y = torch.empty_like(x)
    if n_rows == 0:
        return y, h

    block_n, rows_per_tile, num_warps, programs = _config(n_rows, n_cols, _num_sms(x.device))
    num_tiles = triton.cdiv(n_rows, rows_per_tile)
    grid = (programs,)

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
