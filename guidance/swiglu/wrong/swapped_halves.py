"""Wrong: applies silu to the second half and multiplies by the first (silu(up) * gate).

Checkpoints disagree on the order of the fused gate|up weight (vLLM's SiluAndMul and Llama's w1|w3 put the gate
first; some exports put up first), and the kernel is otherwise a correct one-pass design. With the halves swapped
every output is wrong, except where gate and up happen to be close.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _swiglu_kernel(x_ptr, out_ptr, T, F, stride_x, stride_o, BLOCK_F: tl.constexpr):
    # One program per (row, column block); reads 4 bytes and writes 2 per output.
    row = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1) * BLOCK_F + tl.arange(0, BLOCK_F)
    mask = offs < F
    first = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    second = tl.load(x_ptr + row * stride_x + F + offs, mask=mask, other=0.0).to(tl.float32)
    # BUG: the activation goes on the second half
    out = second / (1.0 + tl.exp(-second)) * first
    tl.store(out_ptr + row * stride_o + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    T, two_f = x.shape
    F = two_f // 2
    out = torch.empty((T, F), dtype=x.dtype, device=x.device)
    BLOCK_F = 1024
    _swiglu_kernel[(T, triton.cdiv(F, BLOCK_F))](x, out, T, F, x.stride(0), out.stride(0), BLOCK_F=BLOCK_F)
    return out
