"""MoE grouped-GEMM designs side by side on the moe_grouped_gemm workloads: which tiling, schedule and load path
can beat the reference's per-expert cuBLAS loop where there are few, large experts.
Prints one line per measurement as it goes, then tables of latencies (triton.testing.do_bench, L2 flushed, output
allocation included) and of achieved TFLOP/s (2 * T * N * K / time).

    python benchmarks/moe_designs.py [--workloads W ...] [--designs SUBSTRING ...]
    TRITON_INTERPRET=1 python benchmarks/moe_designs.py --check-interpret

Why it exists: on the H200 the first expert (one grouped launch, 128 x 128 x 64 tiles, 4 warps, 4 stages,
pointer loads through cp.async) wins where experts are many and small (Qwen3-30B-A3B: 520 us against the
reference's 3537 us) but loses where they are few and large: Mixtral-8x7B 4222 us against 2872 us (the reference's
8 cuBLAS GEMMs run at ~93% of the measured bf16 peak, the expert at ~63% of SOL), DeepSeek-V3 EP8 1130 us against
1113 us. Mixtral is compute-bound (1.9 TFLOP, ~1000 rows per expert), so the only lever is the tensor-core rate of
the main loop: a grouped kernel must reach ~90% of the wgmma peak, which in Triton on Hopper takes bigger tiles
(a 128 x 256 tile on two warpgroups, each issuing 64 x 256 wgmma, moves ~25% fewer operand bytes per FLOP from L2
and ~17% fewer from shared memory than the expert's 128 x 128 tile on one warpgroup) and, usually, TMA loads (one
thread issues a whole tile copy: no per-thread address arithmetic or cp.async, fewer registers, deeper pipelines).
DeepSeek-V3 (~256 rows per expert, K = 7168) sits near the ridge: W[e] must cross HBM once while the tensor cores
stay busy, and 128-row tiles waste about half a tile of rows per expert.

Every design is a `solution(x, w, offsets)` with the expert's signature and obeys the task's rules as a candidate
expert would: one launch scheduled on the device from the offsets (no host sync), every product and sum in a Triton
kernel, the host only allocates. The designs measured here (names read `<load path> BMxBNxBK w<warps> s<stages>`):

- ptr BMxBNxBK: the expert's kernel (flat (expert M-tile, N-tile) space, GROUP_M swizzle, masked pointer loads)
  with other tiles: 128 x 256 x 64 on 8 warps (2 warpgroups of 64 x 256, the classic Hopper GEMM shape) with 3 or
  4 stages (48 KB of operands per stage), 256 x 128 x 64 on 8 warps, and the expert's 128 x 128 x 64 with a wider
  swizzle group (g16) and with 8 warps;
- persistent ptr: grid = number of SMs; each program walks the flattened tile space with stride #SMs in the same
  GROUP_M-swizzled order (so the ~132 tiles in flight at any time share W column panels in L2) and the tile loop is
  flattened with the K loop (`tl.range(..., flatten=True)`) so the next tile's loads overlap the current epilogue;
  no tail wave of partially-filled SMs and no per-tile launch cost;
- tma: the same schedule, but X, W[e] and Y go through tensor descriptors made on the device per tile
  (`tl.make_tensor_descriptor`): X with shape [offsets[e+1], K] (rows past the expert's end are zero-filled by the
  TMA unit, so no mask), W with the per-expert base pointer w + e*K*N and shape [K, N], Y with shape
  [offsets[e+1], N] (the TMA store clips the rows of the next expert). Needs `triton.set_allocator` (global scratch
  for the descriptors: an allocation), 16-byte aligned bases and K, N multiples of 8 (true of every workload);
  64 x 256 x 64 on 4 warps is the DeepSeek candidate (less partial-tile waste at ~256 rows per expert); "split"
  stores Y as two 128 x 128 halves, so that the 64 KB staging buffer of a whole 128 x 256 bf16 tile does not push
  4 stages of 48 KB past the 227 KB of shared memory;
- tma ... ws: the same with Triton's automatic warp specialization of the K loop (`tl.range(...,
  warp_specialize=True)`; Triton 3.6 has a Hopper pass for it): a producer warp issues the TMA loads, the consumer
  warpgroups only run wgmma, the cuBLAS/CUTLASS structure;
- persistent tma: the persistent schedule with TMA loads and the split TMA store (in a flattened loop the
  pipeline's buffers stay live through the epilogue), 3 or 4 stages, and with warp specialization of the tile loop.

First H200 runs (2026-11-29, docs/runs/2026-11-29-h200-night/sweep-*-moe.txt): persistent tma 128x256x64 w8
s3 ws (620-634 TFLOP/s on Mixtral, within 1-2% of cuBLAS per expert) won or tied everywhere and is now the
expert; the designs after it in DESIGNS were added after the first run.

A design that fails to compile or run is a finding, recorded as "error: Type" in the table, not the end of the run.

On the CPU (`--check-interpret`, TRITON_INTERPRET=1, the harness's interpreter patches applied first) every design
and the expert run on the task's interpreter workload and are checked against the reference at the task's bf16
tolerance. The interpreter runs the tensor-descriptor designs too (it emulates descriptor loads and stores with
bounds masks, and ignores num_stages, warp_specialize and flatten), so their schedule and clipping logic is checked
there; what it cannot check is the GPU side: the TMA lowering, the Hopper warp-specialization pass and the
flattened persistent pipeline only exist when compiling for the H200, where a compile failure shows up as an error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from design_sweep import check_interpret, error_cell, error_detail, load, poison, print_table, time_us, verdict  # noqa: E402


@triton.jit
def _schedule(offsets_ptr, E, BLOCK_M: tl.constexpr, BLOCK_E: tl.constexpr):
    """Per-expert M-tile counts and their inclusive prefix sum, from the offsets (as the expert does)."""
    e_idx = tl.arange(0, BLOCK_E)
    has_e = e_idx < E
    starts = tl.load(offsets_ptr + e_idx, mask=has_e, other=0)
    ends = tl.load(offsets_ptr + e_idx + 1, mask=has_e, other=0)
    n_tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    tiles_end = tl.cumsum(n_tiles, axis=0)
    return starts, ends, n_tiles, tiles_end, tl.sum(n_tiles, axis=0)


@triton.jit
def _locate(
    tile,
    starts,
    ends,
    n_tiles,
    tiles_end,
    total_m,
    num_n,
    BLOCK_M: tl.constexpr,
    BLOCK_E: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    """(expert, first row, end row, N-tile) of flat tile `tile` (< total_m * num_n), GROUP_M-swizzled."""
    per_group = GROUP_M * num_n
    first_m = (tile // per_group) * GROUP_M
    group_m = tl.minimum(total_m - first_m, GROUP_M)
    tile_m = first_m + (tile % per_group) % group_m
    tile_n = (tile % per_group) // group_m
    e = tl.sum((tiles_end <= tile_m).to(tl.int32), axis=0)
    mine = tl.arange(0, BLOCK_E) == e
    row_start = tl.sum(tl.where(mine, starts + (tile_m - (tiles_end - n_tiles)) * BLOCK_M, 0), axis=0)
    row_end = tl.sum(tl.where(mine, ends, 0), axis=0)
    return e, row_start, row_end, tile_n


@triton.jit
def _tile(
    x_ptr,
    w_ptr,
    y_ptr,
    e,
    row_start,
    row_end,
    tile_n,
    N,
    K,
    stride_xm,
    stride_we,
    stride_wk,
    stride_ym,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    EVEN_K: tl.constexpr,
    TMA: tl.constexpr,
    WS: tl.constexpr,
    EPI_SPLIT: tl.constexpr,
):
    """Y[row_start:row_end, tile_n-th BLOCK_N columns] = X[rows] @ W[e][:, columns], fp32 accumulate, bf16 once."""
    n0 = tile_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if TMA:
        # Shapes end at the expert's last row: the TMA unit zero-fills rows past it on load and clips them on store.
        x_desc = tl.make_tensor_descriptor(
            x_ptr, shape=[row_end, K], strides=[stride_xm, 1], block_shape=[BLOCK_M, BLOCK_K]
        )
        w_desc = tl.make_tensor_descriptor(
            w_ptr + e.to(tl.int64) * stride_we, shape=[K, N], strides=[stride_wk, 1], block_shape=[BLOCK_K, BLOCK_N]
        )
        y_desc = tl.make_tensor_descriptor(
            y_ptr, shape=[row_end, N], strides=[stride_ym, 1], block_shape=[BLOCK_M, BLOCK_N // EPI_SPLIT]
        )
        for k in tl.range(0, K, BLOCK_K, warp_specialize=WS):
            a = x_desc.load([row_start, k])
            b = w_desc.load([k, n0])
            acc = tl.dot(a, b, acc)
        if EPI_SPLIT == 2:
            halves = tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            acc0, acc1 = tl.split(halves)
            y_desc.store([row_start, n0], acc0.to(y_ptr.dtype.element_ty))
            y_desc.store([row_start, n0 + BLOCK_N // 2], acc1.to(y_ptr.dtype.element_ty))
        else:
            y_desc.store([row_start, n0], acc.to(y_ptr.dtype.element_ty))
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


@triton.jit
def _grouped_kernel(
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
    TMA: tl.constexpr,
    WS: tl.constexpr,
    EPI_SPLIT: tl.constexpr,
):
    """One output tile per program over an upper-bound grid; programs past the last real tile return."""
    starts, ends, n_tiles, tiles_end, total_m = _schedule(offsets_ptr, E, BLOCK_M, BLOCK_E)
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    if pid >= total_m * num_n:
        return
    e, row_start, row_end, tile_n = _locate(pid, starts, ends, n_tiles, tiles_end, total_m, num_n, BLOCK_M, BLOCK_E,
                                            GROUP_M)  # fmt: skip
    _tile(x_ptr, w_ptr, y_ptr, e, row_start, row_end, tile_n, N, K, stride_xm, stride_we, stride_wk, stride_ym,
          BLOCK_M, BLOCK_N, BLOCK_K, EVEN_K, TMA, WS, EPI_SPLIT)  # fmt: skip


@triton.jit
def _persistent_kernel(
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
    TMA: tl.constexpr,
    WS: tl.constexpr,
    EPI_SPLIT: tl.constexpr,
    NUM_PROGRAMS: tl.constexpr,
    FLATTEN: tl.constexpr,
):
    """A fixed grid; program p takes tiles p, p + NUM_PROGRAMS, ... of the swizzled flat tile space."""
    starts, ends, n_tiles, tiles_end, total_m = _schedule(offsets_ptr, E, BLOCK_M, BLOCK_E)
    num_n = tl.cdiv(N, BLOCK_N)
    total = total_m * num_n
    for tile in tl.range(tl.program_id(0), total, NUM_PROGRAMS, flatten=FLATTEN, warp_specialize=WS):
        e, row_start, row_end, tile_n = _locate(tile, starts, ends, n_tiles, tiles_end, total_m, num_n, BLOCK_M,
                                                BLOCK_E, GROUP_M)  # fmt: skip
        _tile(x_ptr, w_ptr, y_ptr, e, row_start, row_end, tile_n, N, K, stride_xm, stride_we, stride_wk, stride_ym,
              BLOCK_M, BLOCK_N, BLOCK_K, EVEN_K, TMA, False, EPI_SPLIT)  # fmt: skip


def _scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """Global scratch for device-side tensor descriptors (an allocation, as the task's rules allow)."""
    return torch.empty(size, dtype=torch.int8, device="cuda")


def _num_sms(device: torch.device) -> int:
    # On the CPU interpreter a small "SM" count makes every persistent program loop over several tiles.
    return torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else 4


def design(block_m: int, block_n: int, block_k: int, warps: int, stages: int, *, group_m: int = 8, tma: bool = False,
           ws: bool = False, persistent: bool = False, epi_split: int = 1, flatten: bool = True):  # fmt: skip
    def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        T, K = x.shape
        E, _, N = w.shape
        assert x.stride(1) == 1 and w.stride(2) == 1 and offsets.is_contiguous()
        y = torch.empty((T, N), dtype=x.dtype, device=x.device)
        if T == 0 or N == 0:
            return y
        if tma:
            # TMA: 16-byte aligned bases (also each expert's W[e]) and row strides.
            if K % 8 or N % 8 or any(t.data_ptr() % 16 for t in (x, w, y)):
                raise ValueError("tensor descriptors need K and N multiples of 8 and 16-byte aligned tensors")
            if x.is_cuda:
                triton.set_allocator(_scratch)
        tiles_bound = (triton.cdiv(T, block_m) + E) * triton.cdiv(N, block_n)  # each expert adds <= 1 partial tile
        args = (x, w, y, offsets, N, K, E, x.stride(0), w.stride(0), w.stride(1), y.stride(0))
        meta = dict(BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, BLOCK_E=max(triton.next_power_of_2(E), 16),
                    GROUP_M=group_m, EVEN_K=K % block_k == 0, TMA=tma, WS=ws, EPI_SPLIT=epi_split,
                    num_warps=warps, num_stages=stages)  # fmt: skip
        if persistent:
            programs = min(_num_sms(x.device), tiles_bound)
            _persistent_kernel[(programs,)](*args, NUM_PROGRAMS=programs, FLATTEN=flatten, **meta)
        else:
            _grouped_kernel[(tiles_bound,)](*args, **meta)
        return y

    return solution


DESIGNS = {
    "ptr 128x256x64 w8 s3": design(128, 256, 64, 8, 3),
    "ptr 128x256x64 w8 s4": design(128, 256, 64, 8, 4),
    "ptr 256x128x64 w8 s3": design(256, 128, 64, 8, 3),
    "ptr 128x128x64 w4 s4 g16": design(128, 128, 64, 4, 4, group_m=16),
    "ptr 128x128x64 w8 s4": design(128, 128, 64, 8, 4),
    "persistent ptr 128x128x64 w4 s4": design(128, 128, 64, 4, 4, persistent=True),
    "persistent ptr 128x256x64 w8 s3": design(128, 256, 64, 8, 3, persistent=True),
    "tma 128x128x64 w4 s4": design(128, 128, 64, 4, 4, tma=True),
    "tma 128x256x64 w8 s3": design(128, 256, 64, 8, 3, tma=True),
    "tma 128x256x64 w8 s4 split": design(128, 256, 64, 8, 4, tma=True, epi_split=2),
    "tma 64x256x64 w4 s4": design(64, 256, 64, 4, 4, tma=True),
    "tma 128x256x64 w8 s3 ws": design(128, 256, 64, 8, 3, tma=True, ws=True),
    "persistent tma 128x256x64 w8 s3": design(128, 256, 64, 8, 3, tma=True, persistent=True, epi_split=2),
    "persistent tma 128x256x64 w8 s4": design(128, 256, 64, 8, 4, tma=True, persistent=True, epi_split=2),
    "persistent tma 128x256x64 w8 s3 ws": design(128, 256, 64, 8, 3, tma=True, persistent=True, epi_split=2, ws=True),
    # after the first H200 sweep (persistent TMA with warp specialization best, ~1% short of cuBLAS on Mixtral)
    "persistent tma 128x256x64 w8 s3 ws g4": design(
        128, 256, 64, 8, 3, tma=True, persistent=True, epi_split=2, ws=True, group_m=4
    ),
    "persistent tma 128x256x64 w8 s3 ws g16": design(
        128, 256, 64, 8, 3, tma=True, persistent=True, epi_split=2, ws=True, group_m=16
    ),
    "persistent tma 128x256x64 w8 s4 ws": design(128, 256, 64, 8, 4, tma=True, persistent=True, epi_split=2, ws=True),
    "persistent tma 128x256x64 w8 s3 ws whole": design(128, 256, 64, 8, 3, tma=True, persistent=True, ws=True),
    "persistent tma 128x256x128 w8 s2 ws": design(128, 256, 128, 8, 2, tma=True, persistent=True, epi_split=2, ws=True),
    "persistent tma 256x128x64 w8 s3 ws": design(256, 128, 64, 8, 3, tma=True, persistent=True, epi_split=2, ws=True),
    "tma 128x256x64 w8 s4 split ws": design(128, 256, 64, 8, 4, tma=True, epi_split=2, ws=True),
    "persistent tma 128x256x64 w8 s3 noflat": design(
        128, 256, 64, 8, 3, tma=True, persistent=True, epi_split=2, flatten=False
    ),
}


def _candidates(files, names: list[str] | None) -> dict:
    designs = {n: fn for n, fn in DESIGNS.items() if not names or any(s in n for s in names)}
    return {"expert": files.expert.solution} | designs


def bench(files, workload_names: list[str] | None, names: list[str] | None) -> int:
    candidates = {"reference (cuBLAS per expert)": files.reference} | _candidates(files, names)
    workloads = files.workloads(interpret=False, names=workload_names)
    print(f"moe_grouped_gemm designs on {torch.cuda.get_device_name()}, triton {triton.__version__}, "
          f"{_num_sms(torch.device('cuda'))} SMs; microseconds (TFLOP/s)")  # fmt: skip
    began = time.perf_counter()
    times: list[dict[str, str]] = []
    rates: list[dict[str, str]] = []
    for workload in workloads:
        args = files.inputs.make_inputs(dict(workload.params), workload.seed, torch.device("cuda"))
        x, w, offsets = args
        T, K = x.shape
        N = w.shape[2]
        flops = 2.0 * T * N * K
        expected = files.reference(x, w, offsets)
        column: dict[str, str] = {}
        rate: dict[str, str] = {}
        for name, fn in candidates.items():
            try:
                poison(expected)
                ok = verdict(files.task, fn(*args), expected).ok
                us = time_us(lambda fn=fn, args=args: fn(*args))
                column[name] = f"{us:.1f}" if ok else f"WRONG ({us:.1f})"
                rate[name] = f"{flops / us * 1e-6:.0f}" if ok else "WRONG"
            except Exception as exc:  # a design that fails to compile is a finding, not the end of the table
                column[name] = error_cell(exc)
                rate[name] = column[name]
                print(f"{workload.name} {name}: {error_detail(exc)}", flush=True)
            print(f"{workload.name} {name}: {column[name]} us, {rate[name]} TFLOP/s "
                  f"[{time.perf_counter() - began:.0f} s]", flush=True)  # fmt: skip
            torch.cuda.empty_cache()
        times.append(column)
        rates.append(rate)
        del args, x, w, offsets, expected
        torch.cuda.empty_cache()
    for title, table in (("microseconds", times), ("TFLOP/s (2 * T * N * K / time)", rates)):
        print_table(title, candidates, [w.name for w in workloads], table)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+", help="non-interpret workloads to time (default: all)")
    parser.add_argument("--designs", nargs="+", help="only the designs whose name contains one of these")
    parser.add_argument("--check-interpret", action="store_true", help="check correctness on the CPU interpreter")
    args = parser.parse_args()
    files = load("moe_grouped_gemm")
    if args.check_interpret:
        return check_interpret(files, _candidates(files, args.designs))
    return bench(files, args.workloads, args.designs)


if __name__ == "__main__":
    sys.exit(main())
