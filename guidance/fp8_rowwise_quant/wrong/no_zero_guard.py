"""Wrong: a correct one-pass kernel except that it divides by amax / 448 without the zero-row floor.

Padding rows (all zeros) get scale 0 and q = 0 / 0 = NaN, which the clamp does not remove and which encodes as
0x7F / 0xFF; the reference gives scale 1e-12 / 448 and q = 0 there.
"""
# expect: incorrect:nonfinite  (decoded, the codes it writes for a zero row are NaN)

import torch
import triton
import triton.language as tl


@triton.jit
def quant_kernel(x_ptr, q_ptr, scale_ptr, N, stride_xm, stride_qm, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_xm + offs, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = amax / 448.0
    y = x / scale
    y = tl.where(y > 448.0, 448.0, tl.where(y < -448.0, -448.0, y))
    a = tl.abs(y)
    bits = a.to(tl.uint32, bitcast=True)
    normal = ((bits + 0x7FFFF + ((bits >> 20) & 1)) >> 20).to(tl.int32) - ((127 - 7) << 3)
    sub = ((a * 512.0 + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(a < 0.015625, sub, normal)
    code = tl.where(y != y, 0x7F, code)  # NaN
    code = tl.where(y < 0, code | 0x80, code)
    tl.store(q_ptr + row * stride_qm + offs, code.to(tl.uint8), mask=mask)
    tl.store(scale_ptr + row, scale)


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    quant_kernel[(M,)](x, q, scale, N, x.stride(0), q.stride(0), BLOCK=triton.next_power_of_2(N))
    return q, scale
