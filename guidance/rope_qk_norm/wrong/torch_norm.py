"""Wrong: computes the per-head inverse RMS with torch outside the kernel and only rotates in Triton.

`x.float().square().mean(-1)` looks like harmless glue, but it is the reduction of the norm running as aten ops
(and an fp32 copy of q and k in memory, three extra passes). The runtime guard rejects the first compute op that
runs outside a kernel.
"""
# expect: runtime:forbidden-op

import torch
import triton
import triton.language as tl


@triton.jit
def _scale_rope_kernel(
    x_ptr, ms_ptr, w_ptr, pos_ptr, cache_ptr, o_ptr, n_heads, eps, stride_cache,
    HEAD_DIM: tl.constexpr, HALF: tl.constexpr, BLOCK_HALF: tl.constexpr,
):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    t = row // n_heads
    offs = tl.arange(0, BLOCK_HALF)
    mask = offs < HALF
    rstd = tl.rsqrt(tl.load(ms_ptr + row) + eps)
    x1 = tl.load(x_ptr + row * HEAD_DIM + offs, mask=mask, other=0.0).to(tl.float32) * rstd
    x2 = tl.load(x_ptr + row * HEAD_DIM + HALF + offs, mask=mask, other=0.0).to(tl.float32) * rstd
    n1 = x1 * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    n2 = x2 * tl.load(w_ptr + HALF + offs, mask=mask, other=0.0).to(tl.float32)
    pos = tl.load(pos_ptr + t)
    c = tl.load(cache_ptr + pos * stride_cache + offs, mask=mask, other=0.0)
    s = tl.load(cache_ptr + pos * stride_cache + HALF + offs, mask=mask, other=0.0)
    tl.store(o_ptr + row * HEAD_DIM + offs, (n1 * c - n2 * s).to(o_ptr.dtype.element_ty), mask=mask)
    tl.store(o_ptr + row * HEAD_DIM + HALF + offs, (n2 * c + n1 * s).to(o_ptr.dtype.element_ty), mask=mask)


def _apply(x, w, positions, cache, eps):
    T, H, D = x.shape
    mean_sq = x.float().square().mean(dim=-1).contiguous()  # the defect: a torch reduction outside Triton
    out = torch.empty_like(x)
    _scale_rope_kernel[(T * H,)](
        x, mean_sq, w, positions, cache, out, H, float(eps), cache.stride(0),
        HEAD_DIM=D, HALF=D // 2, BLOCK_HALF=triton.next_power_of_2(D // 2),
    )  # fmt: skip
    return out


def solution(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    return _apply(q, q_weight, positions, cos_sin_cache, eps), _apply(k, k_weight, positions, cos_sin_cache, eps)
