"""Wrong: computes h with a Triton kernel but takes y from the task's reference implementation.

A shortcut an agent might take when the norm "already matches": import the reference and return its
result. The harness rejects any solution that calls the reference, whatever its values are.
"""
# expect: static:calls-reference

import torch
import triton
import triton.language as tl
from reference import reference


@triton.jit
def _add_kernel(x_ptr, res_ptr, h_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    r = tl.load(res_ptr + offs, mask=mask, other=0.0)
    tl.store(h_ptr + offs, (x.to(tl.float32) + r.to(tl.float32)).to(h_ptr.dtype.element_ty), mask=mask)


def solution(x, residual, weight, eps):
    h = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _add_kernel[(triton.cdiv(n, BLOCK),)](x, residual, h, n, BLOCK=BLOCK)
    y, _ = reference(x, residual, weight, eps)
    return y, h
