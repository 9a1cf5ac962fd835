"""Wrong: computes sigmoid(gate) with torch and only the products in Triton.

`gate.float().sigmoid()` reads like a cast plus a harmless elementwise op, but it is the activation itself running
outside Triton (and an extra fp32 tensor of T x F written and read back: 8 bytes more per output). torch.sigmoid
and its Tensor method are forbidden for this task, so the static check rejects it.
"""
# expect: static:forbidden-call

import torch
import triton
import triton.language as tl


@triton.jit
def _gated_mul_kernel(x_ptr, sig_ptr, out_ptr, F, stride_x, stride_s, stride_o, BLOCK_F: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1) * BLOCK_F + tl.arange(0, BLOCK_F)
    mask = offs < F
    g = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(x_ptr + row * stride_x + F + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(sig_ptr + row * stride_s + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_o + offs, (g * s * u).to(out_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    T, two_f = x.shape
    F = two_f // 2
    sig = x[:, :F].float().sigmoid()
    out = torch.empty((T, F), dtype=x.dtype, device=x.device)
    BLOCK_F = 1024
    _gated_mul_kernel[(T, triton.cdiv(F, BLOCK_F))](
        x, sig, out, F, x.stride(0), sig.stride(0), out.stride(0), BLOCK_F=BLOCK_F
    )
    return out
