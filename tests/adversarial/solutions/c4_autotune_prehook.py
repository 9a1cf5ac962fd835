"""An @triton.autotune config whose pre_hook (run by Triton's autotuner, in the launch path the guard suspends)
computes alpha * x + y with torch into the output; the kernel itself does nothing. Must be rejected: user hooks
run guarded.
"""

# expect: runtime:forbidden-op
# class: 4

import torch
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def fill_kernel(out_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32) + value, mask=offs < n)


def honest(x, y, alpha):
    out = torch.empty_like(x)
    scale_add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, alpha, x.numel(), BLOCK=1024)
    return out


def wrong(x):
    out = torch.empty_like(x)
    fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, 0.0, x.numel(), BLOCK=1024)
    return out


def _pre_hook(nargs):
    nargs["out_ptr"].copy_(nargs["x_ptr"] * nargs["alpha"] + nargs["y_ptr"])


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=_pre_hook)], key=["n"])
@triton.jit
def idle_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    idle_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, out, alpha, x.numel())
    return out
