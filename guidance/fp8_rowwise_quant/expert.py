"""Per-row float8 e4m3 quantisation of bf16 activations: q = fp8(x / scale), scale = max(|x|) / 448 per row.

Design (one guidance item per idea):

* One pass over HBM (L1.1, L2.1). A program owns whole rows. When a row fits on chip (N <= 32768, i.e. at most
  64 KB of bf16) it is loaded once into registers, its absmax is reduced there and the same registers are
  scaled, converted and stored: 2 bytes read and 1 byte written per element plus 4 bytes per row, the problem's
  minimum. Longer rows take a two-sweep path inside the same program whose second read hits L2 (L2.2).
* One division per row (L1.2). The zero-row guard `max(amax, 1e-12)` and the division by 448 happen once per
  row; the elements are multiplied by the reciprocal `448 / amax` (at most one fp8 step from dividing, which
  the tolerance allows), clamped to +-448 and converted with round-to-nearest-even.
* Launch shape (L3.1). BLOCK_N = next power of two of N, so each thread holds a contiguous run of 8-16
  elements: 16-byte bf16 loads and 8-16 byte fp8 stores. num_warps grows with the row (4 up to 4096 columns,
  8 up to 16384, 16 above) to keep about 32-64 fp32 values per thread: no spills, enough loads in flight.
  Short rows (N <= 2048) pack several rows into one program so each program still moves >= 16 KB.
* fp8 store (L3.2). The output is allocated as uint8 (the task's representation); on the GPU the kernel converts
  with `.to(tl.float8e4nv)` (one cvt.rn.satfinite per pair of values on sm_90) and bitcasts to uint8 for the
  store. Under the CPU interpreter, whose fp8 cast rounds wrongly, `_encode_e4m3` rounds on the fp32 bits.

Memory traffic per call: M*N*2 bytes read, M*N bytes + M*4 bytes written (rows longer than 32768: + M*N*2 read
from L2).
"""

import torch
import triton
import triton.language as tl

FP8_MAX = tl.constexpr(448.0)  # a constexpr: kernels on the GPU may read only constexpr globals
AMAX_FLOOR = tl.constexpr(1e-12)
_MAX_ROW_ON_CHIP = 32768  # bf16 elements a program keeps in registers (16 warps x 32 threads x 64 values)
_CHUNK = 8192  # column chunk of the two-sweep path for longer rows


@triton.jit
def _encode_e4m3(y, SOFT_FP8: tl.constexpr):
    """fp32 values already clamped to [-448, 448] -> float8_e4m3fn bit patterns (uint8), round to nearest even.

    On the GPU this is the hardware conversion (cvt.rn.satfinite, two values per instruction). Triton 3.6's CPU
    interpreter gets that cast wrong (ties round away from zero, fp8 subnormals are off by up to 8 codes), so
    on CPU tensors the same rounding is done on the fp32 bits: exact, but ~15 integer ops per element, which
    would make the GPU kernel ALU-bound.
    """
    if SOFT_FP8:
        a = tl.abs(y)
        bits = a.to(tl.uint32, bitcast=True)
        # normal fp8 (|y| >= 2^-6): round the 23-bit mantissa to 3 bits (RNE), rebias the exponent 127 -> 7
        rounded = (bits + 0x7FFFF + ((bits >> 20) & 1)) >> 20
        normal = rounded.to(tl.int32) - ((127 - 7) << 3)
        # subnormal fp8: multiples of 2^-9; adding 1.5 * 2^23 rounds a * 512 to an integer with RNE
        sub = ((a * 512.0 + 12582912.0) - 12582912.0).to(tl.int32)
        code = tl.where(a < 0.015625, sub, normal)
        code = tl.where(y < 0, code | 0x80, code)
        return code.to(tl.uint8)
    else:
        return y.to(tl.float8e4nv).to(tl.uint8, bitcast=True)


@triton.jit
def _quant_rows_kernel(
    x_ptr,
    q_ptr,
    scale_ptr,
    M,
    N,
    stride_xm,
    stride_qm,
    ROWS: tl.constexpr,
    BLOCK_N: tl.constexpr,
    SOFT_FP8: tl.constexpr,
):
    """ROWS whole rows per program, each held in registers: one read of x, one write of q."""
    row0 = tl.program_id(0) * ROWS
    offs_m = row0 + tl.arange(0, ROWS)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    rows = offs_m.to(tl.int64)[:, None]
    x = tl.load(x_ptr + rows * stride_xm + offs_n[None, :], mask=mask, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=1), AMAX_FLOOR)
    inv = FP8_MAX / amax  # the only division: one per row
    y = tl.clamp(x * inv[:, None], -FP8_MAX, FP8_MAX)
    tl.store(q_ptr + rows * stride_qm + offs_n[None, :], _encode_e4m3(y, SOFT_FP8), mask=mask)
    tl.store(scale_ptr + offs_m, amax / FP8_MAX, mask=offs_m < M)


@triton.jit
def _quant_long_rows_kernel(
    x_ptr, q_ptr, scale_ptr, N, stride_xm, stride_qm, CHUNK: tl.constexpr, SOFT_FP8: tl.constexpr
):
    """One program per row too long for registers: an absmax sweep, then a quantise sweep that re-reads the
    row (from L2: a 64 KB+ row was read microseconds earlier by the same SM)."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, CHUNK)
    x_row = x_ptr + row * stride_xm
    q_row = q_ptr + row * stride_qm
    running = tl.zeros((CHUNK,), dtype=tl.float32)
    for start in range(0, N, CHUNK):
        x = tl.load(x_row + start + offs, mask=start + offs < N, other=0.0).to(tl.float32)
        running = tl.maximum(running, tl.abs(x))
    amax = tl.maximum(tl.max(running, axis=0), AMAX_FLOOR)
    inv = FP8_MAX / amax
    for start in range(0, N, CHUNK):
        mask = start + offs < N
        x = tl.load(x_row + start + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.clamp(x * inv, -FP8_MAX, FP8_MAX)
        tl.store(q_row + start + offs, _encode_e4m3(y, SOFT_FP8), mask=mask)
    tl.store(scale_ptr + row, amax / FP8_MAX)


def _launch_shape(N: int) -> tuple[int, int, int]:
    """(BLOCK_N, rows per program, num_warps) for the on-chip path."""
    block_n = max(triton.next_power_of_2(N), 256)
    rows = max(1, min(16, 8192 // block_n))  # >= 16 KB of bf16 per program for short rows
    num_warps = 4 if block_n * rows <= 4096 else 8 if block_n * rows <= 16384 else 16
    return block_n, rows, num_warps


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dim() == 2 and x.stride(1) == 1, "x must be [M, N] with contiguous rows"
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    soft_fp8 = x.device.type == "cpu"  # CPU tensors mean the Triton interpreter: see _encode_e4m3
    if N <= _MAX_ROW_ON_CHIP:
        block_n, rows, num_warps = _launch_shape(N)
        grid = (triton.cdiv(M, rows),)
        _quant_rows_kernel[grid](
            x,
            q,
            scale,
            M,
            N,
            x.stride(0),
            q.stride(0),
            ROWS=rows,
            BLOCK_N=block_n,
            SOFT_FP8=soft_fp8,
            num_warps=num_warps,
        )
    else:
        _quant_long_rows_kernel[(M,)](
            x, q, scale, N, x.stride(0), q.stride(0), CHUNK=_CHUNK, SOFT_FP8=soft_fp8, num_warps=8
        )
    return q, scale
