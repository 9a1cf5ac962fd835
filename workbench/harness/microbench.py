"""Microbenchmarks of the device's ceilings, one a resource of the SOL model (workbench/speed_of_light.py).

Each runs with torch and Triton alone and returns the best rate it reached, or raises Unavailable with the reason (no
CUDA device, an instruction the GPU lacks): a ceiling is measured or it is absent, never assumed. Work is counted as
the task formulas count it (an FMA or IMAD as 2 operations, source-level operations), and each kernel keeps enough
independent chains in flight that the unit, not a latency, limits it; a rate below the unit's true peak would put
SOL above what a kernel can reach, so where two forms of a benchmark exist the faster one is kept.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable
from typing import Any

import torch
import triton
import triton.language as tl

COPY_BYTES = 2 << 30  # 2 GiB copied: far beyond the L2, long enough for clean event timing
MATMUL_N = 8192
CHAINS = 8  # independent chains per element in the CUDA-core kernels: enough to hide each op's latency
BLOCK = 1024
# The CUDA-core ceilings time each chain at ITERS_SHORT and ITERS_LONG loop steps and divide the steps between by
# the time between: launch, clock ramp-up and the tail of the last wave, paid by both, cancel. On an H200 (2026-12-04
# 03:48 UTC, benchmarks/cuda_core_ceilings.py) one 256-step launch at 4 programs a SM read 29.7 TFLOP/s FP32, 24.5
# Tops/s INT32 and 3.35 Tops/s exp2 where the difference of 2048 and 256 steps read 61.0, 38.8 and 3.78 (ncu's FP32
# peak for the board: 66.4-66.9); the best difference was at 8 or 16 programs a SM on 4 warps.
ITERS_SHORT, ITERS_LONG = 256, 2048
PROGRAMS_PER_SM = (8, 16)


class Unavailable(Exception):
    """This ceiling cannot be measured here; the message says why."""


def require_cuda(device: torch.device) -> None:
    if device.type != "cuda" or not torch.cuda.is_available():
        raise Unavailable("no CUDA device: not measured")


def median_ms(fn: Callable[[], Any], reps: int) -> float:
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


READ_BLOCK = 4096  # elements a program of the read-only stream sums


@triton.jit
def block_sums(a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A read-only stream: each program sums its block of `a` and writes one float."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(a_ptr + offs, mask=offs < n, other=0.0), axis=0))


def gbps(bytes_moved: int, run: Callable[[], Any]) -> float:
    return bytes_moved / (median_ms(run, 20) * 1e-3) / 1e9


def hbm_gbps(device: torch.device) -> float:
    """HBM bytes moved per second: the best of a copy (1 read : 1 write), a read-only stream and a write-only one.
    Reads and writes alone run faster than a copy (no bus turnarounds between them: on an H200 about 4450 against
    4240 GB/s, benchmarks/hbm_streams.py), and SOL's HBM time is a floor that a correct read-heavy kernel must not
    beat, or the harness refuses it as implausible."""
    require_cuda(device)
    src = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    n = src.numel()
    sums = torch.empty(triton.cdiv(n, READ_BLOCK), dtype=torch.float32, device=device)
    copy = gbps(2 * COPY_BYTES, lambda: dst.copy_(src))
    read = gbps(COPY_BYTES, lambda: block_sums[(sums.numel(),)](src, sums, n, BLOCK=READ_BLOCK))
    write = gbps(COPY_BYTES, lambda: dst.fill_(1.0))
    return max(copy, read, write)


def _mm_tflops(run: Callable[[], Any]) -> float:
    return 2 * MATMUL_N**3 / (median_ms(run, 10) * 1e-3) / 1e12


def bf16_tflops(device: torch.device) -> float:
    require_cuda(device)
    gen = torch.Generator(device=device).manual_seed(0)
    a, b = (torch.randn(MATMUL_N, MATMUL_N, device=device, dtype=torch.bfloat16, generator=gen) for _ in range(2))
    return _mm_tflops(lambda: torch.mm(a, b))


def tf32_tflops(device: torch.device) -> float:
    require_cuda(device)
    gen = torch.Generator(device=device).manual_seed(0)
    a, b = (torch.randn(MATMUL_N, MATMUL_N, device=device, dtype=torch.float32, generator=gen) for _ in range(2))
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        return _mm_tflops(lambda: torch.mm(a, b))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before


def fp8_tflops(device: torch.device) -> float:
    require_cuda(device)
    if not hasattr(torch, "_scaled_mm") or torch.cuda.get_device_capability(device) < (8, 9):
        raise Unavailable("no fp8 matmul on this GPU (needs compute capability 8.9 and torch._scaled_mm)")
    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(MATMUL_N, MATMUL_N, device=device, generator=gen).to(torch.float8_e4m3fn)
    b = torch.randn(MATMUL_N, MATMUL_N, device=device, generator=gen).to(torch.float8_e4m3fn).t()  # column-major
    one = torch.ones((), device=device)
    try:
        return _mm_tflops(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    except RuntimeError as exc:
        raise Unavailable(f"torch._scaled_mm failed: {str(exc).splitlines()[0]}") from None


@triton.jit
def _fma_kernel(out_ptr, m, k, n_iters, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = offs.to(tl.float32) * 1e-9
    # 8 independent chains per element; `m` and `k` are run-time values, so nothing folds
    c0, c1, c2, c3, c4, c5, c6, c7 = x, x + 1.0, x + 2.0, x + 3.0, x + 4.0, x + 5.0, x + 6.0, x + 7.0
    for _ in range(n_iters):
        c0, c1, c2, c3 = tl.fma(c0, m, k), tl.fma(c1, m, k), tl.fma(c2, m, k), tl.fma(c3, m, k)
        c4, c5, c6, c7 = tl.fma(c4, m, k), tl.fma(c5, m, k), tl.fma(c6, m, k), tl.fma(c7, m, k)
    tl.store(out_ptr + offs, c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7)


@triton.jit
def _int_kernel(out_ptr, m, k, n_iters, BLOCK: tl.constexpr, MIXED: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c0, c1, c2, c3, c4, c5, c6, c7 = offs, offs + 1, offs + 2, offs + 3, offs + 4, offs + 5, offs + 6, offs + 7
    for _ in range(n_iters):
        c0, c1, c2, c3 = c0 * m + k, c1 * m + k, c2 * m + k, c3 * m + k  # multiply-adds
        if MIXED:  # half the chains on the logic/add path, which runs beside the multiply-adds
            c4, c5, c6, c7 = (c4 ^ m) + k, (c5 ^ m) + k, (c6 ^ m) + k, (c7 ^ m) + k
        else:
            c4, c5, c6, c7 = c4 * m + k, c5 * m + k, c6 * m + k, c7 * m + k
    tl.store(out_ptr + offs, c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7)


@triton.jit
def _ex2(x):
    return tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)


@triton.jit
def _sfu_kernel(out_ptr, m, n_iters, BLOCK: tl.constexpr, ASM: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = offs.to(tl.float32) * 1e-9
    c0, c1, c2, c3, c4, c5, c6, c7 = x, x + 0.1, x + 0.2, x + 0.3, x + 0.4, x + 0.5, x + 0.6, x + 0.7
    for _ in range(n_iters):  # x -> 2^(m x) with m < 0 stays in (0, 1]: one special-function op per step
        if ASM:
            c0, c1, c2, c3 = _ex2(c0 * m), _ex2(c1 * m), _ex2(c2 * m), _ex2(c3 * m)
            c4, c5, c6, c7 = _ex2(c4 * m), _ex2(c5 * m), _ex2(c6 * m), _ex2(c7 * m)
        else:
            c0, c1, c2, c3 = tl.exp2(c0 * m), tl.exp2(c1 * m), tl.exp2(c2 * m), tl.exp2(c3 * m)
            c4, c5, c6, c7 = tl.exp2(c4 * m), tl.exp2(c5 * m), tl.exp2(c6 * m), tl.exp2(c7 * m)
    tl.store(out_ptr + offs, c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7)


def chain_difference_rate(lanes: int, ops_per_step: int, short_ms: float, long_ms: float) -> float | None:
    """Operations per second (in units of 1e12) of the ITERS_LONG - ITERS_SHORT steps a long chain has over a short
    one, on `lanes` lanes: launch and ramp-up, paid by both, cancel. None when the long chain did not take longer."""
    if long_ms <= short_ms:
        return None
    return lanes * ops_per_step * (ITERS_LONG - ITERS_SHORT) / ((long_ms - short_ms) * 1e-3) / 1e12


def _chain_rate(device: torch.device, launch: Callable[[torch.Tensor, int, int], Any], ops_per_step: int,
                dtype: torch.dtype = torch.float32) -> float:  # fmt: skip
    """Operations per second (in units of 1e12) of the loop steps a long chain has over a short one, each lane doing
    `ops_per_step` operations a step; the best over PROGRAMS_PER_SM. `launch(out, programs, steps)`."""
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    best = 0.0
    for per_sm in PROGRAMS_PER_SM:
        programs = sms * per_sm
        out = torch.empty(programs * BLOCK, dtype=dtype, device=device)
        short_ms, long_ms = (
            median_ms(functools.partial(launch, out, programs, n), 5) for n in (ITERS_SHORT, ITERS_LONG)
        )
        best = max(best, chain_difference_rate(programs * BLOCK, ops_per_step, short_ms, long_ms) or 0.0)
    if best <= 0:
        raise Unavailable("a longer chain never took longer than a short one: not measured")
    return best


# The CUDA-core chains launched on `programs` programs of BLOCK lanes, `iters` loop steps each, on Triton's default 4
# warps unless told; benchmarks/cuda_core_ceilings.py runs them at other shapes. Operations a lane does per step:
# 2 * CHAINS (an FMA or a multiply-add counted 2), CHAINS for exp2.
def launch_fma(out: torch.Tensor, programs: int, iters: int, num_warps: int = 4) -> Any:
    return _fma_kernel[(programs,)](out, 0.999, 1e-3, iters, BLOCK=BLOCK, num_warps=num_warps)


def launch_int(out: torch.Tensor, programs: int, iters: int, mixed: bool, num_warps: int = 4) -> Any:
    return _int_kernel[(programs,)](out, 1664525, 1013904223, iters, BLOCK=BLOCK, MIXED=mixed, num_warps=num_warps)


def launch_exp2(out: torch.Tensor, programs: int, iters: int, asm: bool, num_warps: int = 4) -> Any:
    return _sfu_kernel[(programs,)](out, -0.7, iters, BLOCK=BLOCK, ASM=asm, num_warps=num_warps)


def fp32_tflops(device: torch.device) -> float:
    """FP32 FMA chains: 2 operations per FMA."""
    require_cuda(device)
    return _chain_rate(device, launch_fma, 2 * CHAINS)


def int32_tops(device: torch.device) -> float:
    """INT32 chains, multiply-adds alone and mixed with xor-adds (2 operations each); the faster."""
    require_cuda(device)
    rates = []
    for mixed in (False, True):

        def launch(out: torch.Tensor, programs: int, iters: int, mixed: bool = mixed) -> Any:
            return launch_int(out, programs, iters, mixed)

        rates.append(_chain_rate(device, launch, 2 * CHAINS, torch.int32))
    return max(rates)


def sfu_tops(device: torch.device) -> float:
    """exp2 chains, through Triton's exp2 and through the bare ex2.approx instruction; the faster that runs."""
    require_cuda(device)
    rates, errors = [], []
    for asm in (False, True):

        def launch(out: torch.Tensor, programs: int, iters: int, asm: bool = asm) -> Any:
            return launch_exp2(out, programs, iters, asm)

        try:
            rates.append(_chain_rate(device, launch, CHAINS))
        except Exception as exc:  # a compile error of the inline-asm form leaves the other
            errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    if not rates:
        raise Unavailable("exp2 kernels failed: " + "; ".join(errors))
    return max(rates)


@triton.jit
def _step_kernel(out_ptr, n_steps, BLOCK: tl.constexpr):
    v = tl.arange(0, BLOCK).to(tl.float32) * 1e-3
    s = tl.sum(v, axis=0) * 0.0 + 1.0
    for _ in range(n_steps):
        # one step: an elementwise op on the previous result, then a block-wide max that the next step needs
        s = tl.max(v * s + v, axis=0) * 1e-3 + 1.0
    tl.store(out_ptr, s)


STEP_CONFIGS = ((32, 1), (128, 4), (1024, 4))  # (BLOCK, warps): one warp's shuffles up to a block through memory
STEPS_SHORT, STEPS_LONG = 1000, 11000


def step_us(device: torch.device) -> float:
    """The least latency of one dependent step in one program: the time of a long chain minus a short one, over
    the steps between (the launch cancels), the fastest of the shapes tried."""
    require_cuda(device)
    out = torch.empty(1, dtype=torch.float32, device=device)
    best = float("inf")
    for block, warps in STEP_CONFIGS:

        def chain(n: int, block: int = block, warps: int = warps) -> float:
            return median_ms(lambda: _step_kernel[(1,)](out, n, BLOCK=block, num_warps=warps), 5)

        per_step_ms = (chain(STEPS_LONG) - chain(STEPS_SHORT)) / (STEPS_LONG - STEPS_SHORT)
        best = min(best, per_step_ms * 1e3)
    if not best > 0:
        raise Unavailable(f"a dependent step measured {best} us")
    return best


# ceiling key -> (how it is measured, the benchmark)
_CHAINS = (
    f"a {ITERS_LONG}-step chain minus a {ITERS_SHORT}-step one, the best of {' and '.join(map(str, PROGRAMS_PER_SM))} "
    f"programs of {BLOCK} lanes a SM"
)
BENCHMARKS: dict[str, tuple[str, Callable[[torch.device], float]]] = {
    "bandwidth_gbps": (
        f"the best of three {COPY_BYTES >> 20} MiB streams, median of 20 each, CUDA events: a copy (read + write), "
        "a read (Triton block sums), a write (fill)",
        hbm_gbps,
    ),
    "matmul_tflops": (f"median of 10 bf16 {MATMUL_N}^3 torch.mm on random data", bf16_tflops),
    "tf32_tflops": (f"median of 10 fp32 {MATMUL_N}^3 torch.mm with TF32 allowed", tf32_tflops),
    "fp8_tflops": (f"median of 10 e4m3 {MATMUL_N}^3 torch._scaled_mm to bf16", fp8_tflops),
    "fp32_tflops": (
        f"Triton kernel, {CHAINS} independent FMA chains per element, an FMA counted 2; {_CHAINS}",
        fp32_tflops,
    ),
    "int32_tops": (
        f"Triton kernel, {CHAINS} independent INT32 multiply-add (and xor-add) chains, each counted 2; {_CHAINS}",
        int32_tops,
    ),
    "sfu_tops": (
        f"Triton kernel, {CHAINS} independent exp2 chains (tl.exp2 and ex2.approx), one op each; {_CHAINS}",
        sfu_tops,
    ),
    "step_us": (
        "one Triton program looping a block max-reduction that feeds the next step; the fastest of "
        f"{len(STEP_CONFIGS)} block shapes, a {STEPS_LONG}-step chain minus a {STEPS_SHORT}-step one",
        step_us,
    ),
}
