"""CSR SpMM designs side by side on the csr_spmm task's workloads: which way of splitting the work wins where.
Prints one line per measurement and a table of latencies (triton.testing.do_bench, L2 flushed, output
allocation included); a design that fails to compile or gives a wrong result is a finding in the table.

    python benchmarks/csr_spmm_designs.py [--workloads W ...] [--designs D ...]
    TRITON_INTERPRET=1 python benchmarks/csr_spmm_designs.py --check-interpret   # CPU: correct/wrong only

Why it exists: the first expert (equal chunks of 256 nonzeros per program, atomics for rows that cross a
chunk) beats cuSPARSE on ogbn-proteins (mean degree ~300) but loses on the short-row graphs
(ogbn-arxiv at N = 256: 897 vs 627 us; Yelp at N = 128: 3274 vs 2102 us on an H200). With log-normal
degrees of mean ~15 the median row holds ~5 nonzeros, so a chunk walks ~17 rows one after another, each
a dependent chain (row_ptr -> col ids -> X gather -> cross-warp sum over SUB -> store) with a mostly
masked [SUB, BLOCK_N] tile. Short rows want many rows' gathers in flight at once and no per-row
reduction; long rows want the equal split. The designs measured here (all fp32 FMAs, no tl.dot, every
multiply and add in Triton; the host only allocates):

- expert: guidance/csr_spmm/expert.py unchanged;
- chunk C [sub S] [wW] [bnB]: the expert's own kernels (partition pass + chunk kernel, imported from the
  expert module) with other CHUNK / SUB / num_warps / BLOCK_N (bnB < N is a feature split of the chunks);
- rowseq rR sS [bnB]: a program owns R consecutive rows and BLOCK_N features and walks the rows one by
  one, each in SUB-nonzero vector steps gathering [SUB, BLOCK_N] tiles of X (16-byte vectors), one
  tl.sum per row, Y stored once; no atomics, no partition pass (cuSPARSE-like row split for short rows);
- lockstep rR sS [bnB] [stages]: a program owns R rows and steps through all of them together: step j
  gathers nonzeros j .. j+S-1 of every row into one [R, S, BLOCK_N] tile, so R*S independent X rows are
  in flight per step and each row keeps its own accumulator (no reduction across rows, no atomics); the
  loop runs to the longest row of the block, so lanes of shorter rows idle (cheap: masked lanes issue
  no memory traffic). Y is written as one [R, BLOCK_N] tile;
- bnB variants (rowseq / lockstep): feature split, grid over (row block, feature block) with the
  feature blocks of one row block adjacent in launch order (they share col_idx / values in L1/L2):
  BLOCK_N = 64 or 128 gives 2-4x more programs in flight and each gather is a 256-512 byte segment;
- hybrid T ...: rows of length <= T go to the lockstep (or rowseq) kernel above; that kernel also reads
  the row lengths it already loads, zeroes the output rows longer than T and appends each such row's
  pieces of PIECE nonzeros to a device work list (one relaxed atomic on a counter per row block that has
  long rows, tl.cumsum for the offsets). A second kernel walks the work list (count read on the device,
  no host sync; grid = an upper bound on the list length, or a persistent grid of SMs x F programs) and
  adds each piece's partial row with fp32 atomics, as the expert does for rows that cross chunks.

First H200 runs (2026-11-29, docs/runs/2026-11-29-h200-night/sweep-*-csr-spmm.txt): the expert's own chunks
with SUB = 2 on one warp beat every row-group, feature-split and hybrid design, and are now the expert's tiles
(the designs named "chunk ..." take the expert's defaults where they do not set them, so rows measured before
that change used SUB = 16-64 on 4 warps).

X-gather locality: hub columns are drawn far more often than others (floor(K u^2)), so their X rows stay
hot in the H200's 50 MB L2; X itself is 173 MB (arxiv, N = 256), 367 MB (Yelp) and 34 MB (proteins).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from design_sweep import check_interpret, load, sweep  # noqa: E402

TASK = "csr_spmm"


@triton.jit
def _enqueue_long_rows(rows, start, end, in_rows, threshold, work_row_ptr, work_piece_ptr, counter_ptr, PIECE):
    """Append the pieces (PIECE nonzeros each) of this block's rows longer than threshold to the work list."""
    pieces = tl.where(in_rows & (end - start > threshold), (end - start + PIECE - 1) // PIECE, 0).to(tl.int32)
    total = tl.sum(pieces, axis=0)
    if total > 0:
        base = tl.atomic_add(counter_ptr, total, sem="relaxed")
        offs = base + tl.cumsum(pieces, axis=0) - pieces
        for t in range(0, tl.max(pieces, axis=0)):
            has = t < pieces
            tl.store(work_row_ptr + offs + t, rows, mask=has)
            tl.store(work_piece_ptr + offs + t, tl.zeros_like(pieces) + t, mask=has)


@triton.jit
def _row_lockstep_kernel(
    row_ptr_ptr,
    col_ptr,
    val_ptr,
    x_ptr,
    y_ptr,
    work_row_ptr,
    work_piece_ptr,
    counter_ptr,
    m,
    n,
    stride_xk,
    stride_ym,
    threshold,
    ROWS: tl.constexpr,
    SUB: tl.constexpr,
    BLOCK_N: tl.constexpr,
    N_BLOCKS: tl.constexpr,
    PIECE: tl.constexpr,
    HYBRID: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_n = pid % N_BLOCKS  # feature blocks of one row block run side by side
    rows = (pid // N_BLOCKS) * ROWS + tl.arange(0, ROWS)
    in_rows = rows < m
    start = tl.load(row_ptr_ptr + rows, mask=in_rows, other=0).to(tl.int64)
    end = tl.load(row_ptr_ptr + rows + 1, mask=in_rows, other=0).to(tl.int64)
    length = end - start
    if HYBRID:
        length = tl.where(length > threshold, 0, length)  # long rows: zero here, pieces + atomics later
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < n
    lanes = tl.arange(0, SUB)

    acc = tl.zeros([ROWS, SUB, BLOCK_N], dtype=tl.float32)
    for j in range(0, tl.max(length, axis=0), SUB):
        step = j + lanes
        valid = step[None, :] < length[:, None]  # [ROWS, SUB]
        k = start[:, None] + step[None, :]
        cols = tl.load(col_ptr + k, mask=valid, other=0).to(tl.int64)
        vals = tl.load(val_ptr + k, mask=valid, other=0.0)
        xs = tl.load(
            x_ptr + cols[:, :, None] * stride_xk + offs_n[None, None, :],
            mask=valid[:, :, None] & mask_n[None, None, :],
            other=0.0,
        )
        acc += vals[:, :, None] * xs
    y_tile = tl.sum(acc, axis=1)
    y_ptrs = y_ptr + rows.to(tl.int64)[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, y_tile, mask=in_rows[:, None] & mask_n[None, :])

    if HYBRID:
        if pid_n == 0:
            _enqueue_long_rows(rows, start, end, in_rows, threshold, work_row_ptr, work_piece_ptr, counter_ptr, PIECE)


@triton.jit
def _row_seq_kernel(
    row_ptr_ptr,
    col_ptr,
    val_ptr,
    x_ptr,
    y_ptr,
    work_row_ptr,
    work_piece_ptr,
    counter_ptr,
    m,
    n,
    stride_xk,
    stride_ym,
    threshold,
    ROWS: tl.constexpr,
    SUB: tl.constexpr,
    BLOCK_N: tl.constexpr,
    N_BLOCKS: tl.constexpr,
    PIECE: tl.constexpr,
    HYBRID: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_n = pid % N_BLOCKS
    row0 = (pid // N_BLOCKS) * ROWS
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < n
    lanes = tl.arange(0, SUB)

    for i in range(0, ROWS):
        row = row0 + i
        in_row = row < m
        r_start = tl.load(row_ptr_ptr + row, mask=in_row, other=0).to(tl.int64)
        r_end = tl.load(row_ptr_ptr + row + 1, mask=in_row, other=0).to(tl.int64)
        if HYBRID:
            r_end = tl.where(r_end - r_start > threshold, r_start, r_end)  # long row: zero here
        acc = tl.zeros([SUB, BLOCK_N], dtype=tl.float32)
        for k0 in range(r_start, r_end, SUB):
            k = k0 + lanes
            valid = k < r_end
            cols = tl.load(col_ptr + k, mask=valid, other=0).to(tl.int64)
            vals = tl.load(val_ptr + k, mask=valid, other=0.0)
            xs = tl.load(
                x_ptr + cols[:, None] * stride_xk + offs_n[None, :], mask=valid[:, None] & mask_n[None, :], other=0.0
            )
            acc += vals[:, None] * xs
        tl.store(y_ptr + row.to(tl.int64) * stride_ym + offs_n, tl.sum(acc, axis=0), mask=in_row & mask_n)

    if HYBRID:
        if pid_n == 0:
            rows = row0 + tl.arange(0, ROWS)
            in_rows = rows < m
            start = tl.load(row_ptr_ptr + rows, mask=in_rows, other=0).to(tl.int64)
            end = tl.load(row_ptr_ptr + rows + 1, mask=in_rows, other=0).to(tl.int64)
            _enqueue_long_rows(rows, start, end, in_rows, threshold, work_row_ptr, work_piece_ptr, counter_ptr, PIECE)


@triton.jit
def _long_piece_kernel(
    row_ptr_ptr,
    col_ptr,
    val_ptr,
    x_ptr,
    y_ptr,
    work_row_ptr,
    work_piece_ptr,
    counter_ptr,
    n,
    stride_xk,
    stride_ym,
    PIECE: tl.constexpr,
    SUB: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < n
    lanes = tl.arange(0, SUB)
    count = tl.load(counter_ptr)
    for w in range(pid, count, nprog):
        row = tl.load(work_row_ptr + w)
        piece = tl.load(work_piece_ptr + w)
        r_end = tl.load(row_ptr_ptr + row + 1).to(tl.int64)
        p_start = tl.load(row_ptr_ptr + row).to(tl.int64) + piece.to(tl.int64) * PIECE
        p_end = tl.minimum(p_start + PIECE, r_end)
        acc = tl.zeros([SUB, BLOCK_N], dtype=tl.float32)
        for k0 in range(p_start, p_end, SUB):
            k = k0 + lanes
            valid = k < p_end
            cols = tl.load(col_ptr + k, mask=valid, other=0).to(tl.int64)
            vals = tl.load(val_ptr + k, mask=valid, other=0.0)
            xs = tl.load(
                x_ptr + cols[:, None] * stride_xk + offs_n[None, :], mask=valid[:, None] & mask_n[None, :], other=0.0
            )
            acc += vals[:, None] * xs
        # the row was zeroed by the row kernel (same stream, earlier launch)
        tl.atomic_add(y_ptr + row.to(tl.int64) * stride_ym + offs_n, tl.sum(acc, axis=0), mask=mask_n, sem="relaxed")


def _check_inputs(row_ptr, col_idx, values, x):
    assert row_ptr.dim() == 1 and col_idx.dim() == 1 and values.shape == col_idx.shape
    assert row_ptr.dtype == col_idx.dtype and values.dtype == torch.float32 and x.dtype == torch.float32
    assert x.dim() == 2 and x.stride(1) == 1, "rows of X must be contiguous"
    assert row_ptr.numel() - 1 < 2**31


def _block_n(n: int, block_n: int | None) -> int:
    full = min(triton.next_power_of_2(n), 256)
    return full if block_n is None else min(block_n, full)


def _sm_count(device: torch.device) -> int:
    return torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else 4


def chunked(expert, chunk: int, sub: int | None = None, warps: int = 4, block_n: int | None = None):
    """The expert's partition + chunk kernels with other tile parameters (same host code as the expert)."""

    def run(row_ptr, col_idx, values, x):
        _check_inputs(row_ptr, col_idx, values, x)
        m, n, nnz = row_ptr.numel() - 1, x.shape[1], col_idx.numel()
        y = torch.empty((m, n), dtype=torch.float32, device=x.device)
        if m == 0 or n == 0:
            return y
        bn, default_sub = expert._tiles(n)
        bn = bn if block_n is None else min(block_n, bn)
        num_chunks = max(1, triton.cdiv(nnz, chunk))
        chunk_row = torch.empty(num_chunks, dtype=torch.int32, device=x.device)
        expert._partition_kernel[(triton.cdiv(m, 256),)](
            row_ptr, chunk_row, y, m, n, y.stride(0), CHUNK=chunk, ROWS=256, BLOCK_N=64, num_warps=4
        )
        if nnz == 0:
            return y
        expert._spmm_chunk_kernel[(num_chunks, triton.cdiv(n, bn))](
            row_ptr, col_idx, values, x, y, chunk_row, nnz, n, x.stride(0), y.stride(0),
            CHUNK=chunk, SUB=sub or default_sub, BLOCK_N=bn, num_warps=warps,
        )  # fmt: skip
        return y

    return run


def rows_design(
    kernel,
    rows: int,
    sub: int,
    block_n: int | None = None,
    stages: int | None = None,
    threshold: int | None = None,
    piece: int = 256,
    long_sub: int = 32,
    persistent: int = 0,
):
    """A row kernel (lockstep or rowseq) alone (threshold None: it takes every row, however long), or the
    hybrid: rows longer than threshold go as pieces of `piece` nonzeros to _long_piece_kernel (atomics).
    persistent = F > 0 launches SMs x F long-row programs that stride over the work list; 0 launches one
    program per possible work item (an upper bound; programs past the device-side count exit at once)."""

    def run(row_ptr, col_idx, values, x):
        _check_inputs(row_ptr, col_idx, values, x)
        m, n, nnz = row_ptr.numel() - 1, x.shape[1], col_idx.numel()
        y = torch.empty((m, n), dtype=torch.float32, device=x.device)
        if m == 0 or n == 0:
            return y
        bn = _block_n(n, block_n)
        n_blocks = triton.cdiv(n, bn)
        tile = rows * sub * bn
        options = {"num_warps": 4 if tile <= 4096 else 8}
        if stages is not None:
            options["num_stages"] = stages
        hybrid = threshold is not None
        if hybrid:
            # each long row (> threshold) yields cdiv(len, piece) <= len / piece + 1 items, and there are at
            # most nnz // (threshold + 1) long rows
            bound = triton.cdiv(nnz, piece) + nnz // (threshold + 1) + 1
            work_row = torch.empty(bound, dtype=torch.int32, device=x.device)
            work_piece = torch.empty(bound, dtype=torch.int32, device=x.device)
            counter = torch.zeros(1, dtype=torch.int32, device=x.device)
        else:
            work_row = work_piece = counter = y  # unused (HYBRID=False compiles them out)
        kernel[(triton.cdiv(m, rows) * n_blocks,)](
            row_ptr, col_idx, values, x, y, work_row, work_piece, counter, m, n, x.stride(0), y.stride(0),
            threshold if hybrid else 0, ROWS=rows, SUB=sub, BLOCK_N=bn, N_BLOCKS=n_blocks, PIECE=piece,
            HYBRID=hybrid, **options,
        )  # fmt: skip
        if hybrid and nnz > threshold:
            long_bn = min(triton.next_power_of_2(n), 256)
            long_sub_eff = max(8, min(long_sub, 8192 // long_bn))
            grid0 = bound if persistent == 0 else min(bound, _sm_count(x.device) * persistent)
            _long_piece_kernel[(grid0, triton.cdiv(n, long_bn))](
                row_ptr, col_idx, values, x, y, work_row, work_piece, counter, n, x.stride(0), y.stride(0),
                PIECE=piece, SUB=long_sub_eff, BLOCK_N=long_bn, num_warps=4,
            )  # fmt: skip
        return y

    return run


def designs(expert) -> dict:
    lock, seq = _row_lockstep_kernel, _row_seq_kernel
    return {
        # 1. the expert's kernels, other parameters
        "chunk 128": chunked(expert, 128),
        "chunk 512": chunked(expert, 512),
        "chunk 256 sub8": chunked(expert, 256, sub=8),
        "chunk 256 w8": chunked(expert, 256, warps=8),
        "chunk 256 bn64": chunked(expert, 256, block_n=64),
        # 1b. after the first H200 sweep (SUB = 8 beat the expert's 16-64 everywhere): smaller SUB, and feature
        # slices with a small SUB; a grid of (chunk, slice) runs the slices one after another (blockIdx.y is the
        # slow index), so only one slice of X (43 MB of arxiv's 173 at 64 features) competes for the 50 MB L2
        "chunk 256 sub4": chunked(expert, 256, sub=4),
        "chunk 256 sub2": chunked(expert, 256, sub=2),
        "chunk 128 sub8": chunked(expert, 128, sub=8),
        "chunk 512 sub8": chunked(expert, 512, sub=8),
        "chunk 256 sub8 w2": chunked(expert, 256, sub=8, warps=2),
        "chunk 256 sub4 w2": chunked(expert, 256, sub=4, warps=2),
        "chunk 256 bn128 sub8": chunked(expert, 256, sub=8, block_n=128),
        "chunk 256 bn64 sub8": chunked(expert, 256, sub=8, block_n=64),
        "chunk 256 bn64 sub16": chunked(expert, 256, sub=16, block_n=64),
        "chunk 256 bn32 sub8 w2": chunked(expert, 256, sub=8, block_n=32, warps=2),
        "chunk 256 bn32 sub16": chunked(expert, 256, sub=16, block_n=32),
        "chunk 512 bn64 sub8": chunked(expert, 512, sub=8, block_n=64),
        "chunk 512 bn32 sub16": chunked(expert, 512, sub=16, block_n=32),
        "chunk 256 bn16 sub16 w2": chunked(expert, 256, sub=16, block_n=16, warps=2),
        # 1c. after the second sweep (SUB = 4 on 2 warps best everywhere, now the expert's): around it
        "chunk 256 sub2 w2": chunked(expert, 256, sub=2, warps=2),
        "chunk 256 sub4 w1": chunked(expert, 256, sub=4, warps=1),
        "chunk 256 sub2 w1": chunked(expert, 256, sub=2, warps=1),
        "chunk 128 sub4 w2": chunked(expert, 128, sub=4, warps=2),
        "chunk 512 sub4 w2": chunked(expert, 512, sub=4, warps=2),
        "chunk 256 bn128 sub4 w2": chunked(expert, 256, sub=4, block_n=128, warps=2),
        # 2. row groups for short rows (no atomics, Y written once); alone they serialise the long rows
        "rowseq r8 s8": rows_design(seq, 8, 8),
        "rowseq r16 s16": rows_design(seq, 16, 16),
        "lockstep r16 s1": rows_design(lock, 16, 1),
        "lockstep r8 s2": rows_design(lock, 8, 2),
        "lockstep r4 s4": rows_design(lock, 4, 4),
        "lockstep r8 s4": rows_design(lock, 8, 4),
        "lockstep r8 s2 stages1": rows_design(lock, 8, 2, stages=1),
        # 3. feature split: (row block, feature block) programs, 256-512 byte gathers
        "rowseq r8 s16 bn64": rows_design(seq, 8, 16, block_n=64),
        "lockstep r8 s4 bn64": rows_design(lock, 8, 4, block_n=64),
        "lockstep r8 s4 bn128": rows_design(lock, 8, 4, block_n=128),
        "lockstep r16 s4 bn64": rows_design(lock, 16, 4, block_n=64),
        # 4. hybrid: short rows in a row kernel, rows > T as pieces with atomics (work list built on device)
        "hybrid T64 lockstep r8 s2": rows_design(lock, 8, 2, threshold=64),
        "hybrid T128 lockstep r8 s2": rows_design(lock, 8, 2, threshold=128),
        "hybrid T256 lockstep r8 s2": rows_design(lock, 8, 2, threshold=256),
        "hybrid T128 lockstep r8 s4 bn64": rows_design(lock, 8, 4, block_n=64, threshold=128),
        "hybrid T128 lockstep r4 s4": rows_design(lock, 4, 4, threshold=128),
        "hybrid T128 rowseq r8 s8": rows_design(seq, 8, 8, threshold=128),
        "hybrid T128 lockstep r8 s2 p512": rows_design(lock, 8, 2, threshold=128, piece=512),
        "hybrid T128 lockstep r8 s2 persist4": rows_design(lock, 8, 2, threshold=128, persistent=4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+")
    parser.add_argument("--designs", nargs="+", help="only these designs (names as in the table)")
    parser.add_argument("--check-interpret", action="store_true", help="CPU interpreter correctness check only")
    args = parser.parse_args()
    files = load(TASK)
    candidates = {"expert": files.expert.solution}
    candidates |= {f"ladder {rung}": m.solution for rung, m in files.ladder_modules().items()} | designs(files.expert)
    if args.designs:
        unknown = set(args.designs) - set(candidates)
        if unknown:
            parser.error(f"unknown designs {sorted(unknown)}; known: {list(candidates)}")
        candidates = {name: fn for name, fn in candidates.items() if name in args.designs}
    if args.check_interpret:
        return check_interpret(files, candidates)

    candidates = {"torch.sparse_csr @ x (reference)": files.reference} | candidates
    sweep(files, candidates, args.workloads, f"csr_spmm designs, triton {triton.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
