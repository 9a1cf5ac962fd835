"""Wrong: one program per row with a fixed 1024-wide block and no loop over the row.

amax and the quantisation only see the first 1024 columns; everything after them is never written (and the scale
is wrong for rows whose maximum lies further right). A typical slip when porting a kernel written for N = 1024.
"""
# expect: incorrect:unwritten

import torch
import triton
import triton.language as tl


@triton.jit
def quant_kernel(x_ptr, q_ptr, scale_ptr, N, stride_xm, stride_qm, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride_xm + offs, mask=mask, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12)
    y = tl.clamp(x * (448.0 / amax), -448.0, 448.0)
    # integer rounding on the fp32 bits (exact everywhere, also under the CPU interpreter)
    a = tl.abs(y)
    bits = a.to(tl.uint32, bitcast=True)
    normal = ((bits + 0x7FFFF + ((bits >> 20) & 1)) >> 20).to(tl.int32) - ((127 - 7) << 3)
    sub = ((a * 512.0 + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.where(a < 0.015625, sub, normal)
    code = tl.where(y < 0, code | 0x80, code)
    tl.store(q_ptr + row * stride_qm + offs, code.to(tl.uint8), mask=mask)
    tl.store(scale_ptr + row, amax / 448.0)


def solution(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.uint8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    quant_kernel[(M,)](x, q, scale, N, x.stride(0), q.stride(0), BLOCK=1024)
    return q, scale
