"""W4A16 GEMM designs side by side on the w4a16_gemm task's workloads: which way of feeding the tensor cores wins
in prefill. Prints one line per measurement, then tables of latencies (triton.testing.do_bench, L2 flushed, output
allocation included) and of achieved TFLOP/s (2 * M * N * K / time), then the parts of the two-pass designs.

    python benchmarks/w4a16_designs.py [--workloads W ...]                    (GPU)
    TRITON_INTERPRET=1 python benchmarks/w4a16_designs.py --check-interpret   (CPU: correct / wrong per design)

Why it exists: on an H200 the first expert (guidance/w4a16_gemm/expert.py) was 11-15x faster than the reference in
decode but slower in prefill: llama3-8b-gateup-prefill-m4096 (M = 4096, K = 4096, N = 28672) took 3618 us against the
reference's 2850 us (torch dequantisation + cuBLAS), about 266 TFLOP/s where a bf16 matmul reaches 727-786. The
hypothesis: with M in the thousands the in-loop dequantisation (nibble unpack, interleave, convert and scale on
the CUDA cores at every k-step, plus a register -> shared-memory copy of the dequantised tile, since Hopper's
wgmma reads its B operand from shared memory) starves the tensor cores. Writing the fp16 weight once (K * N * 2 =
235 MB, ~60-100 us at ~4 TB/s) and then running a plain, well-tiled fp16 GEMM should approach 500-650 TFLOP/s,
about 1.6-2.0 ms in total. Every design is a `solution(X, qweight, scales)` that obeys the task's rules: all
unpacking, dequantisation, products and sums in Triton kernels; the host only allocates. The designs measured:

- fused BMxBNxBK wW sS: the expert's kernel shape without split-K (dequantise in registers each k-step, interleave
  the nibbles, fp16 scale, tl.dot with fp32 accumulation, GROUP_M = 8 program order) at other tiles, warps and
  stages; 128x128x64 w8 s3 is the expert's prefill configuration, a check that this script's kernel matches it.
- fused ... magic: the same, with the nibbles turned into fp16 by bit tricks instead of int -> float conversions:
  (q | 0x6400) read as fp16 is 1024 + q, minus 1032 gives q - 8 exactly (one logic op and one fp16 subtraction
  instead of an integer subtraction and an I2F, which runs at a quarter of the ALU rate).
- fused lo/hi: no per-step interleave. The even columns (low nibbles) and the odd columns (high nibbles) go to two
  tl.dot calls with two [BM, BN / 2] accumulators, their scales loaded with a stride of 2, and the accumulators
  are interleaved once, in the epilogue, instead of shuffling the [BK, BN] weight tile at every step.
- fused swapAB: computes Y^T = W^T X^T, so the dequantised weight is the A operand of the dot. Hopper's wgmma can
  take A from registers (B must come from shared memory), so the dequantised tile may skip the shared-memory round
  trip; X^T comes from shared memory like any loaded operand. Tiles are named BN (weight rows of the dot) x BM.
- fused TMA [persistent]: X and the packed weight loaded through device-side tensor descriptors
  (tl.make_tensor_descriptor: TMA on Hopper, asynchronous and pipelined without address arithmetic), Y stored
  through one; dequantisation in registers as in the expert. The persistent variant launches one program per SM,
  each looping over tiles (tl.range(..., flatten=True), as in Triton's tutorial 09), so the next tile's loads
  overlap the current tile's epilogue.
- dq + gemm: two kernels. A dequantisation pass writes W [K, N] fp16 (the reference's rounding: (q - 8) * s in
  fp16), then a plain Triton GEMM (tutorial-03 style, GROUP_M = 8, fp32 accumulation) multiplies X by it.
  dq^T writes W^T [N, K] instead (K-major B, the layout of tutorial 09's TMA matmuls). gemm TMA uses device-side
  tensor descriptors for X, W and Y; persistent as above. The fp16 weight is a 235 MB temporary per call (rebuilt
  every call, from the call's own inputs: no caching). This contradicts guidance item L1.1 ("never materialise the
  fp16 weight"), which holds for decode; an expert adopting it would dispatch on M and keep the fused split-K path
  for M <= 64.

All designs run on all workloads, decode included, without dispatching on M (they are prefill designs; on decode
they show what a one-size kernel would cost). After the tables, the two-pass designs' parts are timed alone
(dequantisation to W and W^T, with their GB/s; each GEMM on a precomputed W; cuBLAS X @ W on the same W as the
ceiling to aim at, which is not a candidate).

First H200 run (2026-11-29, docs/runs/2026-11-29-h200-night/sweep-1-w4a16-prefill.txt): every fused design
stayed at or under 338 TFLOP/s (the reference: 343); dq + gemm TMA persistent took 1507 us (638 TFLOP/s), the
dequantisation pass 85 us. The expert now takes that path from M = 256 (the "expert" row above predates it).

CPU check (--check-interpret): every design and the expert on the task's interpret workloads plus one extra shape
(M = 300, K = 512, N = 640: several row and column blocks, partial tiles in M and N, more tiles than the 4
programs the persistent designs launch on the CPU), compared with the reference at the task's fp16 tolerance.
The TMA designs run there too (the interpreter emulates tensor descriptors with masked loads and stores), so
their indexing is checked, but not their TMA constraints (16-byte-aligned strides, which these workloads meet)
nor anything about their speed; bf16 tl.dot is wrong in the interpreter, fp16 (all of these designs) is fine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from design_sweep import check_interpret, error_cell, error_detail, load, print_table, time_us, verdict  # noqa: E402

from workbench.harness.solution_side import triton_patches  # noqa: E402

GROUP_SIZE = 128
_INTERPRETER_SMS = 4  # few "SMs" on the CPU so that the persistent designs loop over several tiles
# how the fused kernels feed the two nibbles to tl.dot (constexpr: read inside the kernels)
INTERLEAVE, SWAP_AB, SPLIT_NIBBLES = tl.constexpr(0), tl.constexpr(1), tl.constexpr(2)
# CPU-only extra shape for --check-interpret: partial tiles in M and N, several row and column blocks
EXTRA_CPU_SHAPE = {"name": "extra-m300-k512-n640 (not a task workload)", "M": 300, "K": 512, "N": 640, "seed": 11}


# ------------------------------------------------------------------------------------------------ shared pieces
@triton.jit
def _tile_coords(tile, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """Grouped order: GROUP_M row blocks per group, the column block slowest inside a group (L2 reuse)."""
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (tile // per_group) * GROUP_M
    size_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (tile % per_group) % size_m
    pid_n = (tile % per_group) // size_m
    return pid_m, pid_n


@triton.jit
def _nibbles(packed, MAGIC: tl.constexpr):
    """(q_lo - 8, q_hi - 8) of a uint8 tile as fp16 tiles of the same shape (exact small integers)."""
    if MAGIC:
        # 0x6400 | q read as fp16 is 1024 + q (the ulp at 1024 is 1): subtracting 1032 leaves q - 8 exactly
        lo = ((packed & 0xF).to(tl.uint16) | 0x6400).to(tl.float16, bitcast=True) - 1032.0
        hi = ((packed >> 4).to(tl.uint16) | 0x6400).to(tl.float16, bitcast=True) - 1032.0
    else:
        lo = ((packed & 0xF).to(tl.int16) - 8).to(tl.float16)
        hi = ((packed >> 4).to(tl.int16) - 8).to(tl.float16)
    return lo.to(tl.float16), hi.to(tl.float16)


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return _INTERPRETER_SMS
    return torch.cuda.get_device_properties(device).multi_processor_count


def _set_descriptor_scratch(device: torch.device) -> None:
    """Device-side tensor descriptors need a global scratch buffer per launch; the allocator only allocates."""
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=device))


def _shape(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> tuple[int, int, int]:
    M, K = X.shape
    N = qweight.shape[1] * 2
    assert qweight.shape[0] == K and K % GROUP_SIZE == 0 and scales.shape == (K // GROUP_SIZE, N)
    return M, K, N


def _check_tma(K: int, N: int) -> None:
    """TMA needs 16-byte-aligned row strides: X (2K bytes), packed weight (N / 2), W (2N), W^T (2K), Y (2N)."""
    if K % 8 or N % 32:
        raise ValueError(f"TMA needs K % 8 == 0 and N % 32 == 0 here, got K={K}, N={N}")


# ------------------------------------------------------------------------------------------------ fused designs
@triton.jit
def _fused_kernel(
    x_ptr, qw_ptr, s_ptr, y_ptr, M, N, K, half_n,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    GROUP_SIZE: tl.constexpr, MAGIC: tl.constexpr, MODE: tl.constexpr,
):  # fmt: skip
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    HALF_N: tl.constexpr = BLOCK_N // 2
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = rows % M  # wrapped rows and columns are loaded but never stored: no masks in the loop
    offs_n = cols % N
    offs_j = (pid_n * HALF_N + tl.arange(0, HALF_N)) % half_n
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * K + offs_k[None, :]
    q_ptrs = qw_ptr + offs_k.to(tl.int64)[:, None] * half_n + offs_j[None, :]
    if MODE == SWAP_AB:
        acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    elif MODE == SPLIT_NIBBLES:
        acc_lo = tl.zeros((BLOCK_M, HALF_N), dtype=tl.float32)
        acc_hi = tl.zeros((BLOCK_M, HALF_N), dtype=tl.float32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs)
        lo, hi = _nibbles(tl.load(q_ptrs), MAGIC)
        s_row = s_ptr + (k // GROUP_SIZE) * N  # BLOCK_K divides 128: one scale row per step
        if MODE == SPLIT_NIBBLES:
            s_lo = tl.load(s_row + 2 * offs_j)
            s_hi = tl.load(s_row + 2 * offs_j + 1)
            acc_lo = tl.dot(x, lo * s_lo[None, :], acc_lo)
            acc_hi = tl.dot(x, hi * s_hi[None, :], acc_hi)
        else:
            w = tl.interleave(lo, hi) * tl.load(s_row + offs_n)[None, :]  # column 2j low nibble, 2j + 1 high
            if MODE == SWAP_AB:
                acc = tl.dot(tl.trans(w), tl.trans(x), acc)
            else:
                acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        q_ptrs += BLOCK_K * half_n
    if MODE == SWAP_AB:
        out = tl.trans(acc)
    elif MODE == SPLIT_NIBBLES:
        out = tl.interleave(acc_lo, acc_hi)
    else:
        out = acc
    y_ptrs = y_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :]
    tl.store(y_ptrs, out.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def fused(block_m: int, block_n: int, block_k: int, warps: int, stages: int, magic=False, mode=INTERLEAVE):
    def solution(X, qweight, scales):
        M, K, N = _shape(X, qweight, scales)
        Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
        grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
        _fused_kernel[grid](X, qweight, scales, Y, M, N, K, N // 2,
                            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, GROUP_SIZE=GROUP_SIZE,
                            MAGIC=magic, MODE=mode, num_warps=warps, num_stages=stages)  # fmt: skip
        return Y

    return solution


@triton.jit
def _fused_tma_kernel(
    x_ptr, qw_ptr, s_ptr, y_ptr, M, N, K, num_progs,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    GROUP_SIZE: tl.constexpr, MAGIC: tl.constexpr, FLATTEN: tl.constexpr,
):  # fmt: skip
    HALF_N: tl.constexpr = BLOCK_N // 2
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    q_desc = tl.make_tensor_descriptor(qw_ptr, shape=[K, N // 2], strides=[N // 2, 1], block_shape=[BLOCK_K, HALF_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    # persistent: num_progs programs stride over the tiles; otherwise num_progs == num_tiles, one tile each
    for tile in tl.range(tl.program_id(0), num_tiles, num_progs, flatten=FLATTEN):
        pid_m, pid_n = _tile_coords(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N  # scales only: TMA pads out-of-range tiles with 0
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            x = x_desc.load([pid_m * BLOCK_M, k])
            lo, hi = _nibbles(q_desc.load([k, pid_n * HALF_N]), MAGIC)
            s = tl.load(s_ptr + (k // GROUP_SIZE) * N + offs_n)
            acc = tl.dot(x, tl.interleave(lo, hi) * s[None, :], acc)
        y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))  # clipped to [M, N] by the TMA unit


def fused_tma(block_m: int, block_n: int, block_k: int, warps: int, stages: int, persistent: bool, magic=False):
    def solution(X, qweight, scales):
        M, K, N = _shape(X, qweight, scales)
        _check_tma(K, N)
        _set_descriptor_scratch(X.device)
        Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
        tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
        progs = min(tiles, _sm_count(X.device)) if persistent else tiles
        _fused_tma_kernel[(progs,)](X, qweight, scales, Y, M, N, K, progs,
                                    BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8,
                                    GROUP_SIZE=GROUP_SIZE, MAGIC=magic, FLATTEN=persistent,
                                    num_warps=warps, num_stages=stages)  # fmt: skip
        return Y

    return solution


# ------------------------------------------------------------------------------------------------ two-pass designs
@triton.jit
def _dequant_kernel(
    qw_ptr, s_ptr, w_ptr, K, N, stride_wk, stride_wn,
    BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_SIZE: tl.constexpr,
):  # fmt: skip
    """W[k, n] = (q[k, n] - 8) * s[k // 128, n] in fp16 (the reference's rounding), written at (stride_wk, stride_wn):
    (N, 1) for W [K, N], (1, K) for W^T [N, K]."""
    HALF_N: tl.constexpr = BLOCK_N // 2
    offs_k = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)  # K % BLOCK_K == 0: no mask along K
    offs_j = tl.program_id(1) * HALF_N + tl.arange(0, HALF_N)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    packed = tl.load(qw_ptr + offs_k.to(tl.int64)[:, None] * (N // 2) + offs_j[None, :], mask=offs_j[None, :] < N // 2)
    s = tl.load(s_ptr + (tl.program_id(0) * BLOCK_K // GROUP_SIZE) * N + offs_n, mask=offs_n < N, other=0.0)
    lo, hi = _nibbles(packed, False)
    w = tl.interleave(lo, hi) * s[None, :]
    w_ptrs = w_ptr + offs_k.to(tl.int64)[:, None] * stride_wk + offs_n.to(tl.int64)[None, :] * stride_wn
    tl.store(w_ptrs, w, mask=offs_n[None, :] < N)


def dequantise(qweight: torch.Tensor, scales: torch.Tensor, transposed: bool) -> torch.Tensor:
    K, N = qweight.shape[0], qweight.shape[1] * 2
    BLOCK_K, BLOCK_N, warps = (64, 256, 8) if transposed else (32, 256, 4)  # W^T: 128 contiguous bytes per row
    W = torch.empty((N, K) if transposed else (K, N), dtype=torch.float16, device=qweight.device)
    strides = (1, K) if transposed else (N, 1)
    grid = (K // BLOCK_K, triton.cdiv(N, BLOCK_N))
    _dequant_kernel[grid](qweight, scales, W, K, N, *strides,
                          BLOCK_K=BLOCK_K, BLOCK_N=BLOCK_N, GROUP_SIZE=GROUP_SIZE, num_warps=warps)  # fmt: skip
    return W


@triton.jit
def _gemm_kernel(
    x_ptr, w_ptr, y_ptr, M, N, K, stride_wk, stride_wn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    """Y = X @ W, W read at (stride_wk, stride_wn), fp32 accumulation (tutorial-03 style)."""
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + (rows % M).to(tl.int64)[:, None] * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_k.to(tl.int64)[:, None] * stride_wk + (cols % N).to(tl.int64)[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc = tl.dot(tl.load(x_ptrs), tl.load(w_ptrs), acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    y_ptrs = y_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :]
    tl.store(y_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def _gemm_tma_kernel(
    x_ptr, w_ptr, y_ptr, M, N, K, num_progs,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    W_T: tl.constexpr, FLATTEN: tl.constexpr,
):  # fmt: skip
    """Y = X @ W through device-side tensor descriptors; W given as W^T [N, K] when W_T."""
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    if W_T:
        w_desc = tl.make_tensor_descriptor(w_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    else:
        w_desc = tl.make_tensor_descriptor(w_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), num_tiles, num_progs, flatten=FLATTEN):
        pid_m, pid_n = _tile_coords(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            x = x_desc.load([pid_m * BLOCK_M, k])
            if W_T:
                w = w_desc.load([pid_n * BLOCK_N, k]).T
            else:
                w = w_desc.load([k, pid_n * BLOCK_N])
            acc = tl.dot(x, w, acc)
        y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


def gemm(block_m: int, block_n: int, block_k: int, warps: int, stages: int):
    def run(X, W, transposed: bool):
        M, K = X.shape
        N = W.shape[0] if transposed else W.shape[1]
        Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
        strides = (1, K) if transposed else (N, 1)
        grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
        _gemm_kernel[grid](X, W, Y, M, N, K, *strides, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8,
                           num_warps=warps, num_stages=stages)  # fmt: skip
        return Y

    return run


def gemm_tma(block_m: int, block_n: int, block_k: int, warps: int, stages: int, persistent: bool):
    def run(X, W, transposed: bool):
        M, K = X.shape
        N = W.shape[0] if transposed else W.shape[1]
        _check_tma(K, N)
        _set_descriptor_scratch(X.device)
        Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
        tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
        progs = min(tiles, _sm_count(X.device)) if persistent else tiles
        _gemm_tma_kernel[(progs,)](X, W, Y, M, N, K, progs, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                                   GROUP_M=8, W_T=transposed, FLATTEN=persistent,
                                   num_warps=warps, num_stages=stages)  # fmt: skip
        return Y

    return run


def two_pass(gemm_fn, transposed: bool):
    def solution(X, qweight, scales):
        _shape(X, qweight, scales)
        return gemm_fn(X, dequantise(qweight, scales, transposed), transposed)

    solution.parts = (gemm_fn, transposed)  # for the parts table
    return solution


DESIGNS = {
    "fused 128x128x64 w8 s3 (expert's prefill tile)": fused(128, 128, 64, 8, 3),
    "fused 128x256x64 w8 s3": fused(128, 256, 64, 8, 3),
    "fused 256x128x64 w8 s3": fused(256, 128, 64, 8, 3),
    "fused 128x128x128 w4 s4": fused(128, 128, 128, 4, 4),
    "fused 128x256x64 w8 s3 magic": fused(128, 256, 64, 8, 3, magic=True),
    "fused lo/hi 128x256x64 w8 s3": fused(128, 256, 64, 8, 3, mode=SPLIT_NIBBLES),
    "fused lo/hi 128x256x64 w8 s3 magic": fused(128, 256, 64, 8, 3, magic=True, mode=SPLIT_NIBBLES),
    "fused swapAB bn128 bm128 k64 w8 s3": fused(128, 128, 64, 8, 3, mode=SWAP_AB),
    "fused swapAB bn128 bm256 k64 w8 s3": fused(256, 128, 64, 8, 3, mode=SWAP_AB),
    "fused TMA 128x256x64 w8 s3": fused_tma(128, 256, 64, 8, 3, persistent=False),
    "fused TMA persistent 128x256x64 w8 s3": fused_tma(128, 256, 64, 8, 3, persistent=True),
    "dq + gemm 128x256x64 w8 s3": two_pass(gemm(128, 256, 64, 8, 3), transposed=False),
    "dq + gemm 256x128x64 w8 s3": two_pass(gemm(256, 128, 64, 8, 3), transposed=False),
    "dq + gemm 128x128x64 w4 s4": two_pass(gemm(128, 128, 64, 4, 4), transposed=False),
    "dq^T + gemm 128x256x64 w8 s3": two_pass(gemm(128, 256, 64, 8, 3), transposed=True),
    "dq + gemm TMA 128x256x64 w8 s3": two_pass(gemm_tma(128, 256, 64, 8, 3, persistent=False), transposed=False),
    "dq + gemm TMA persistent 128x256x64 w8 s3": two_pass(gemm_tma(128, 256, 64, 8, 3, True), transposed=False),
    "dq^T + gemm TMA 128x256x64 w8 s3": two_pass(gemm_tma(128, 256, 64, 8, 3, persistent=False), transposed=True),
    "dq^T + gemm TMA persistent 128x256x64 w8 s3": two_pass(gemm_tma(128, 256, 64, 8, 3, True), transposed=True),
}


# ------------------------------------------------------------------------------------------------ driver
def measure_workload(workload, candidates, files) -> tuple[dict, dict, dict]:
    """One workload on the GPU: (latency column, TFLOP/s column, parts column), printing each cell as it goes."""
    p = dict(workload.params)
    M, K, N = int(p["M"]), int(p["K"]), int(p["N"])
    flops = 2 * M * N * K
    X, qweight, scales = files.inputs.make_inputs(p, workload.seed, torch.device("cuda"))
    expected = files.reference(X, qweight, scales)
    us_col, tf_col, part_col = {}, {}, {}
    for name, fn in candidates.items():
        try:
            ok = verdict(files.task, fn(X, qweight, scales), expected).ok
            us = time_us(lambda fn=fn: fn(X, qweight, scales))
            us_col[name] = f"{us:.1f}" if ok else f"WRONG ({us:.1f})"
            tf_col[name] = f"{flops / us / 1e6:.0f}" if ok else f"WRONG ({flops / us / 1e6:.0f})"
            detail = f"{us:.1f} us, {flops / us / 1e6:.0f} TFLOP/s" + ("" if ok else " (WRONG)")
        except Exception as exc:  # a design that fails to compile or launch is a finding, not the end of the table
            us_col[name], detail = error_cell(exc), error_detail(exc)
            tf_col[name] = us_col[name]
        print(f"{workload.name} {name}: {detail}", flush=True)

    # the two-pass designs' parts, alone: how much is the dequantisation, how much the GEMM
    weights = {}
    w_bytes = K * N // 2 + 2 * (K // GROUP_SIZE) * N + 2 * K * N
    for transposed in (False, True):
        name = f"dequantise to {'W^T [N, K]' if transposed else 'W [K, N]'} (GB/s)"
        try:
            weights[transposed] = dequantise(qweight, scales, transposed)
            us = time_us(lambda t=transposed: dequantise(qweight, scales, t))
            part_col[name] = f"{us:.1f} ({w_bytes / us / 1e3:.0f})"
        except Exception as exc:
            part_col[name] = error_cell(exc)
        print(f"{workload.name} part {name}: {part_col[name]}", flush=True)
    parts = [("cuBLAS X @ W, W given (ceiling, not a candidate) (TFLOP/s)", None, False)]
    parts += [(f"{n} : GEMM alone (TFLOP/s)", *fn.parts) for n, fn in DESIGNS.items() if hasattr(fn, "parts")]
    for name, gemm_fn, transposed in parts:
        try:
            W = weights[transposed]
            run = (lambda W=W: X @ W) if gemm_fn is None else (lambda f=gemm_fn, W=W, t=transposed: f(X, W, t))
            ok = verdict(files.task, run(), expected).ok
            us = time_us(run)
            part_col[name] = f"{us:.1f} ({flops / us / 1e6:.0f})" if ok else f"WRONG ({us:.1f})"
        except Exception as exc:
            part_col[name] = error_cell(exc)
        print(f"{workload.name} part {name}: {part_col[name]}", flush=True)
    return us_col, tf_col, part_col


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+")
    parser.add_argument("--check-interpret", action="store_true", help="CPU correctness check (TRITON_INTERPRET=1)")
    args = parser.parse_args()
    files = load("w4a16_gemm")
    tol = files.task.tolerance["float16"]
    expert = files.expert.solution
    if args.check_interpret:
        extra = EXTRA_CPU_SHAPE["name"], {k: EXTRA_CPU_SHAPE[k] for k in "MKN"}, EXTRA_CPU_SHAPE["seed"]
        return check_interpret(files, {"expert": expert} | DESIGNS, [extra])
    triton_patches.apply(interpret=False)  # the harness's launch guard, as in an eval

    candidates = {"reference (torch dequant + cuBLAS)": files.reference, "expert": expert} | DESIGNS
    workloads = files.workloads(interpret=False, names=args.workloads)
    print(
        f"w4a16_gemm designs on {torch.cuda.get_device_name()}, triton {triton.__version__}, torch {torch.__version__}"
    )
    print(f"tolerance |got - ref| <= {tol.atol:g} + {tol.rtol:g} * |ref|; microseconds (do_bench, L2 flushed)")
    columns = []
    for workload in workloads:
        columns.append(measure_workload(workload, candidates, files))
        torch.cuda.empty_cache()
    us_cols, tflops_cols, part_cols = (list(c) for c in zip(*columns, strict=True)) if columns else ([], [], [])
    part_names = list(part_cols[0]) if part_cols else []
    headers = [w.name for w in workloads]
    print_table("latency, microseconds (WRONG (t): outside the tolerance; error: the design failed)", candidates,
                headers, us_cols)  # fmt: skip
    print_table("achieved TFLOP/s (2 * M * N * K / time)", candidates, headers, tflops_cols)
    print_table("parts of the two-pass designs: microseconds (GB/s or TFLOP/s)", part_names, headers, part_cols)
    return 0


if __name__ == "__main__":
    sys.exit(main())
