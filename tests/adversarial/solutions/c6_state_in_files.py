"""Carries state between calls and evals through files: the first output it computes is saved to the workspace and to
the Triton cache folder (TRITON_CACHE_DIR, which persists between evals), and later calls return the saved
output after a dead launch. Must be rejected: stale outputs do not match fresh inputs (and the audit hook refuses
writes outside the worker's roots).
"""

# expect: incorrect:mismatch
# also: runtime:forbidden-op
# class: 6
# seeds: 2

import _c6_state_in_files_impl
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


def solution(x, y, alpha):
    out = wrong(x)
    saved = _c6_state_in_files_impl.load(x)
    if saved is None:
        saved = honest(x, y, alpha)
        _c6_state_in_files_impl.save(saved)
    out.copy_(saved)
    return out
