"""Ladder rung 0 (plain): the reference's two statements ported to two Triton kernels, no guidance.

h = bf16(x + residual);  y = bf16(h * rsqrt(mean(h^2) + eps) * weight)

Kernel 1 is an elementwise add over the flattened tensors (1024 elements per program) that writes h.
Kernel 2 is one program per row, in the style of the Triton tutorials' fused softmax: the whole row of
h is read into a masked power-of-two block, the fp32 sum of squares is divided by the true width and
y = h * rsqrt(...) * weight is stored. num_warps follows the tutorials' layer-norm heuristic
(BLOCK_N // 256, between 1 and 8).

Traffic: kernel 1 reads x, residual and writes h (6 bytes / element); kernel 2 reads h back and
writes y (4 bytes / element): 10 bytes per element against the problem's 8, in two launches.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, res_ptr, h_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    r = tl.load(res_ptr + offs, mask=mask, other=0.0)
    # added in fp32 and rounded once to the storage dtype, as torch's bf16 add does
    h = x.to(tl.float32) + r.to(tl.float32)
    tl.store(h_ptr + offs, h.to(h_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rmsnorm_kernel(h_ptr, w_ptr, y_ptr, n_cols, eps, stride_hm, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs_n = tl.arange(0, BLOCK_N)
    mask = offs_n < n_cols
    h = tl.load(h_ptr + row * stride_hm + offs_n, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs_n, mask=mask, other=0.0).to(tl.float32)
    # masked lanes are 0: the sum is over the row only, and the mean divides by the true width
    rstd = tl.rsqrt(tl.sum(h * h, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * stride_ym + offs_n, (h * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def solution(x, residual, weight, eps):
    assert x.dim() == 2 and residual.shape == x.shape, "x and residual must be [rows, hidden]"
    n_rows, n_cols = x.shape
    assert weight.shape == (n_cols,) and weight.stride(0) == 1
    x = x.contiguous()
    residual = residual.contiguous()

    h = torch.empty_like(x)
    y = torch.empty_like(x)
    if n_rows == 0:
        return y, h

    n_elements = x.numel()
    BLOCK = 4096
    _add_kernel[(triton.cdiv(n_elements, BLOCK),)](x, residual, h, n_elements, BLOCK=BLOCK, num_warps=4)

    block_n = triton.next_power_of_2(n_cols)
    num_warps = min(max(block_n // 256, 1), 8)
    _rmsnorm_kernel[(n_rows,)](
        h, weight, y, n_cols, float(eps), h.stride(0), y.stride(0), BLOCK_N=block_n, num_warps=num_warps
    )
    return y, h
