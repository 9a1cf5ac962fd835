"""Ladder rung 1 (plain + L1.1, L1.2): one kernel, one fp32 expression with a single exp2, gate and up in place.

out = bf16(silu(float(gate)) * float(up)),  gate = x[:, :F], up = x[:, F:]

Over plain.py:
- L1.1: silu(g) * u is one fp32 expression, g * u / (1 + 2^(-g * log2 e)): one exp2, one add, one division, two
  multiplies, rounded to bf16 once at the store. For very negative g the exponential is +inf and the quotient -0.
- L1.2: the up half is loaded at the gate address plus F, from the one pointer to x; the fp32 silu scratch is gone
  and solution() allocates only the output.

Traffic per output: 4 bytes read, 2 written (the problem's 6), one launch. The launch shape is still plain's: a
flat 1-D range of 1024 outputs per program with the row and column recovered by division, no 2-D tiles sized to
the row (L2.1, L2.2).
"""

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _swiglu_kernel(x_ptr, out_ptr, n_out, F, stride_x, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    row = offs // F
    col = offs % F
    gate_ptrs = x_ptr + row * stride_x + col
    g = tl.load(gate_ptrs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(gate_ptrs + F, mask=mask, other=0.0).to(tl.float32)
    out = g * u / (1.0 + tl.exp2(-g * _LOG2E))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dim() == 2 and x.shape[1] % 2 == 0 and x.stride(1) == 1, "x must be [T, 2F] with unit column stride"
    T, two_f = x.shape
    F = two_f // 2
    out = torch.empty((T, F), dtype=x.dtype, device=x.device)
    n_out = T * F
    if n_out == 0:
        return out

    BLOCK = 1024
    _swiglu_kernel[(triton.cdiv(n_out, BLOCK),)](x, out, n_out, F, x.stride(0), BLOCK=BLOCK, num_warps=4)
    return out
