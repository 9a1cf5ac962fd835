"""Wrong: the convolution is torch.nn.functional.conv1d; a Triton kernel only applies the SiLU.

The kernel makes the static "launches a Triton kernel" rule pass, but the work that matters runs in cuDNN.
torch.nn.functional is forbidden by the harness defaults.
"""
# expect: static:forbidden-call

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _silu_kernel(src_ptr, dst_ptr, n, APPLY: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(src_ptr + offs, mask=offs < n, other=0.0)
    if APPLY:
        v = v / (1.0 + tl.exp(-v))
    tl.store(dst_ptr + offs, v.to(dst_ptr.dtype.element_ty), mask=offs < n)


def solution(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    B, T, C = x.shape
    W = weight.shape[1]
    conv = F.conv1d(x.transpose(1, 2).float(), weight.float().unsqueeze(1), bias.float(), padding=W - 1, groups=C)
    conv = conv[..., :T].transpose(1, 2).contiguous()
    y = torch.empty_like(x)
    BLOCK = 1024
    _silu_kernel[(triton.cdiv(y.numel(), BLOCK),)](conv, y, y.numel(), APPLY=bool(silu), BLOCK=BLOCK)
    return y
