"""Ladder rung 0 (plain): the reference's two steps ported to two Triton kernels, no guidance.

out = bf16(silu(float(gate)) * float(up)),  gate = x[:, :F], up = x[:, F:]

Kernel 1 computes silu(gate) = g * sigmoid(g) over the flattened [T, F] outputs (1024 per program, the row and
column of each output recovered by division) and stores it in an fp32 scratch tensor, as the reference's
F.silu(gate.float()) is a tensor of its own. Kernel 2 reads that tensor back with the up half and stores the
product, rounded to bf16 once. The sigmoid is written the textbook way, 1 / (1 + exp(-g)), with a natural exp.

Traffic per output: kernel 1 reads 2 bytes of gate and writes 4 of silu; kernel 2 reads 4 + 2 and writes 2:
14 bytes against the problem's 6, in two launches.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _silu_kernel(x_ptr, silu_ptr, n_out, F, stride_x, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    row = offs // F
    col = offs % F
    g = tl.load(x_ptr + row * stride_x + col, mask=mask, other=0.0).to(tl.float32)
    # kept in fp32 like the reference's silu of the upcast gate, so the product below rounds once
    tl.store(silu_ptr + offs, g * (1.0 / (1.0 + tl.exp(-g))), mask=mask)


@triton.jit
def _mul_kernel(x_ptr, silu_ptr, out_ptr, n_out, F, stride_x, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    row = offs // F
    col = offs % F
    s = tl.load(silu_ptr + offs, mask=mask, other=0.0)
    u = tl.load(x_ptr + row * stride_x + F + col, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (s * u).to(out_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor) -> torch.Tensor:
    assert x.dim() == 2 and x.shape[1] % 2 == 0 and x.stride(1) == 1, "x must be [T, 2F] with unit column stride"
    T, two_f = x.shape
    F = two_f // 2
    out = torch.empty((T, F), dtype=x.dtype, device=x.device)
    n_out = T * F
    if n_out == 0:
        return out

    silu = torch.empty((T, F), dtype=torch.float32, device=x.device)
    BLOCK = 1024
    grid = (triton.cdiv(n_out, BLOCK),)
    _silu_kernel[grid](x, silu, n_out, F, x.stride(0), BLOCK=BLOCK, num_warps=4)
    _mul_kernel[grid](x, silu, out, n_out, F, x.stride(0), BLOCK=BLOCK, num_warps=4)
    return out
