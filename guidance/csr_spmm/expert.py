"""CSR SpMM Y = A @ X with the nonzeros split into equal chunks, so skewed rows do not serialise.

Graph adjacencies have power-law row lengths: most rows hold a handful of entries, a few hold
thousands. One program per row gives the long rows' programs 100-1000x the work of the rest, and the
whole launch waits for them. Design:

- Nonzero splitting (L1.1). Program c owns nonzeros [c * CHUNK, (c + 1) * CHUNK) -- the same work for
  every program, whatever the row lengths -- and walks the rows that intersect its range. A row that
  lies wholly inside the chunk is finished there and stored; a row that crosses a chunk boundary gets
  one partial sum per chunk, added with fp32 atomics (a few per long row, none for short rows).
- Partition pass (L1.2). A small kernel reads row_ptr once and writes, for every chunk, the row holding
  the chunk's first nonzero (rows covering chunk starts write them; no binary search per program). The
  same pass zeroes the output rows that will not be stored whole: empty rows and rows that cross a chunk
  boundary (the atomic targets). Y is not memset as a whole: every other row is written exactly once.
- Dataflow (L2.1, L2.2). A program owns (chunk, block of BLOCK_N features). For each row segment it
  loads SUB column ids and values as vectors, gathers the SUB rows of X as one [SUB, BLOCK_N] tile
  (contiguous rows, 16-byte vectors) and accumulates value * x in a 2-D fp32 register tile; the tile is
  reduced once per row. X rows are gathered from L2 at best (power-law columns make hub rows hot), A is
  streamed once.
- Tiles (L3). BLOCK_N covers all features (<= 256) so col_idx / values are read once. SUB = 2 nonzeros
  per step and one warp per program: with log-normal degrees most rows hold a few nonzeros, so a wider
  step is mostly masked lanes, and small programs let more of them (and their independent gathers) be
  resident per SM. CHUNK = 256 nonzeros per program keeps 10^4-10^5 programs in flight. On an H200
  (benchmarks/csr_spmm_designs.py, 44 designs; do_bench) SUB = 2 on 1 warp took 540 / 1605 / 1137 us on
  the three GPU workloads, SUB = 4 on 2 warps 593 / 1656 / 1108 us, and SUB = 16-64 on 4 warps (this
  expert's first tiles) 897 / 3273 / 1623 us. fp32 FMAs throughout (no tl.dot: TF32 would break the fp32
  contract and the per-row shapes are too small for tensor cores).

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-04-h200/profiles/ (the same expert code), summed up in that run's README.md, "Profiles".
- ogbn-arxiv-gcn-256: 15.2% of SOL, bound by HBM; expert 539.4 us, SOL 82.2 us.
  Profile (csr_spmm__ogbn-arxiv-gcn-256.txt): `_spmm_chunk_kernel` 522.2 us, 98% of the kernels' time; DRAM 3.77
  TB/s, 78% of peak; memory-bound (SM 18%); 60 registers, occupancy 43% of 50% possible.
- yelp-graphsaint-128: 11.6% of SOL, bound by HBM; expert 1605.1 us, SOL 185.7 us.
  Profile (csr_spmm__yelp-graphsaint-128.txt): `_spmm_chunk_kernel` 1.576 ms, 99% of the kernels' time; DRAM 4.25
  TB/s, 88% of peak; memory-bound (SM 24%); 64 registers, occupancy 48% of 50% possible.
- ogbn-proteins-64: 7.7% of SOL, bound by FP32; expert 1139.9 us, SOL 87.2 us (HBM 83.9 us).
  Profile (csr_spmm__ogbn-proteins-64.txt): `_spmm_chunk_kernel` 1.127 ms, 99% of the kernels' time; memory
  throughput 88% of peak, with ncu pointing at L2; DRAM 1.12 TB/s (23%); FP32 4.56 TFLOP/s, 7% of the FP32 peak;
  SM 48%; 59 registers, occupancy 48% of 50% possible.
  This run's FP32 ceiling is 58.3 TFLOP/s, measured as a chain difference, against 34.1 in the run before, so the
  fraction is about half the 13.1% it read there. The FP32 pipes at 7% show that the FMAs do not hold the kernel.
Why, all three: the kernel gathers one row of X per nonzero, and X does not stay in L2, so most gathers go to DRAM
(arxiv, yelp) or keep L2 busy (proteins). The model counts X once. DRAM runs at 78-88% of its peak on bytes the model
does not count, so a one-pass gather over a power-law graph cannot approach this floor on this chip. Only fewer DRAM
bytes can: reuse of X on chip (passes over column blocks of A whose slice of X fits in L2) or an order of the nodes
with more locality, both untried (docs/suite.md, "Workloads under 40% of SOL, and why (profiled)").
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _partition_kernel(
    row_ptr_ptr,
    chunk_row_ptr,  # [num_chunks] int32: the row holding each chunk's first nonzero
    y_ptr,
    m,
    n,
    stride_ym,
    CHUNK: tl.constexpr,
    ROWS: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    in_rows = rows < m
    start = tl.load(row_ptr_ptr + rows, mask=in_rows, other=0).to(tl.int64)
    end = tl.load(row_ptr_ptr + rows + 1, mask=in_rows, other=0).to(tl.int64)

    # chunk c starts inside row r iff start <= c * CHUNK < end: chunks cdiv(start) .. cdiv(end) - 1
    first = (start + CHUNK - 1) // CHUNK
    last = (end + CHUNK - 1) // CHUNK
    span = tl.where(in_rows, last - first, 0)
    for t in range(0, tl.max(span, axis=0)):
        tl.store(chunk_row_ptr + first + t, rows, mask=t < span)

    # rows that will not be stored whole by one program: empty, or crossing a chunk boundary
    crosses = (start // CHUNK) != ((end - 1) // CHUNK)
    needs_zero = in_rows & ((end == start) | crosses)
    zeros = tl.zeros([ROWS, BLOCK_N], dtype=tl.float32)
    for n0 in range(0, n, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        ptrs = y_ptr + rows.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
        tl.store(ptrs, zeros, mask=needs_zero[:, None] & (offs_n < n)[None, :])


@triton.jit
def _spmm_chunk_kernel(
    row_ptr_ptr,
    col_ptr,
    val_ptr,
    x_ptr,
    y_ptr,
    chunk_row_ptr,
    nnz,
    n,
    stride_xk,
    stride_ym,
    CHUNK: tl.constexpr,
    SUB: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    chunk = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < n
    lanes = tl.arange(0, SUB)

    c_start = chunk.to(tl.int64) * CHUNK
    c_end = tl.minimum(c_start + CHUNK, nnz)
    row = tl.load(chunk_row_ptr + chunk)
    pos = c_start
    while pos < c_end:
        r_start = tl.load(row_ptr_ptr + row).to(tl.int64)
        r_end = tl.load(row_ptr_ptr + row + 1).to(tl.int64)
        seg_end = tl.minimum(r_end, c_end)

        acc = tl.zeros([SUB, BLOCK_N], dtype=tl.float32)
        for k0 in range(pos, seg_end, SUB):
            k = k0 + lanes
            valid = k < seg_end
            # A streamed once: SUB column ids and values per step
            cols = tl.load(col_ptr + k, mask=valid, other=0).to(tl.int64)
            vals = tl.load(val_ptr + k, mask=valid, other=0.0)
            # SUB rows of X gathered as one tile (contiguous rows, 16-byte vectors)
            xs = tl.load(
                x_ptr + cols[:, None] * stride_xk + offs_n[None, :], mask=valid[:, None] & mask_n[None, :], other=0.0
            )
            acc += vals[:, None] * xs
        y_row = tl.sum(acc, axis=0)

        y_ptrs = y_ptr + row.to(tl.int64) * stride_ym + offs_n
        if (r_start >= c_start) & (r_end <= c_end):
            # the whole row is ours: plain store, written exactly once
            tl.store(y_ptrs, y_row, mask=mask_n)
        else:
            # a long row split across chunks: add this chunk's partial sum (target zeroed by the partition)
            tl.atomic_add(y_ptrs, y_row, mask=mask_n, sem="relaxed")
        pos = seg_end
        row += 1


_CHUNK = 256  # nonzeros per program


_SUB = 2  # nonzeros per step: most rows are short, so a wide step is mostly masked lanes
_WARPS = 1


def _tiles(n: int):
    return min(triton.next_power_of_2(n), 256), _SUB


def solution(row_ptr, col_idx, values, x):
    assert row_ptr.dim() == 1 and col_idx.dim() == 1 and values.shape == col_idx.shape
    assert row_ptr.dtype == col_idx.dtype and values.dtype == torch.float32 and x.dtype == torch.float32
    assert x.dim() == 2 and x.stride(1) == 1, "rows of X must be contiguous"
    m = row_ptr.numel() - 1
    n = x.shape[1]
    nnz = col_idx.numel()
    assert m < 2**31
    y = torch.empty((m, n), dtype=torch.float32, device=x.device)
    if m == 0 or n == 0:
        return y

    block_n, sub = _tiles(n)
    num_chunks = max(1, triton.cdiv(nnz, _CHUNK))
    chunk_row = torch.empty(num_chunks, dtype=torch.int32, device=x.device)
    rows_per_prog = 256
    _partition_kernel[(triton.cdiv(m, rows_per_prog),)](
        row_ptr, chunk_row, y, m, n, y.stride(0), CHUNK=_CHUNK, ROWS=rows_per_prog, BLOCK_N=64, num_warps=4
    )
    if nnz == 0:
        return y
    _spmm_chunk_kernel[(num_chunks, triton.cdiv(n, block_n))](
        row_ptr,
        col_idx,
        values,
        x,
        y,
        chunk_row,
        nnz,
        n,
        x.stride(0),
        y.stride(0),
        CHUNK=_CHUNK,
        SUB=sub,
        BLOCK_N=block_n,
        num_warps=_WARPS,
    )
    return y
