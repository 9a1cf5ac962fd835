"""Wrong: normalises and rotates q and k in place and returns the inputs, as vLLM's rotary op does.

The values are right and it saves two allocations, but this task's contract is two new tensors and untouched
inputs: the caller still owns q and k (e.g. the un-rotated k for a cache written later). The harness sees q and k
modified after the call.
"""
# expect: incorrect:input-modified

import triton
import triton.language as tl


@triton.jit
def _norm_rope_inplace_kernel(
    x_ptr, w_ptr, pos_ptr, cache_ptr, n_heads, eps, stride_cache,
    HEAD_DIM: tl.constexpr, HALF: tl.constexpr, BLOCK_HALF: tl.constexpr,
):  # fmt: skip
    # One program per (token, head); reads and rewrites D * 2 bytes of x.
    row = tl.program_id(0).to(tl.int64)
    t = row // n_heads
    offs = tl.arange(0, BLOCK_HALF)
    mask = offs < HALF
    base = x_ptr + row * HEAD_DIM
    x1 = tl.load(base + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(base + HALF + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt((tl.sum(x1 * x1, axis=0) + tl.sum(x2 * x2, axis=0)) / HEAD_DIM + eps)
    n1 = x1 * rstd * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    n2 = x2 * rstd * tl.load(w_ptr + HALF + offs, mask=mask, other=0.0).to(tl.float32)
    pos = tl.load(pos_ptr + t)
    c = tl.load(cache_ptr + pos * stride_cache + offs, mask=mask, other=0.0)
    s = tl.load(cache_ptr + pos * stride_cache + HALF + offs, mask=mask, other=0.0)
    # the defect: the result overwrites the input
    tl.store(base + offs, (n1 * c - n2 * s).to(x_ptr.dtype.element_ty), mask=mask)
    tl.store(base + HALF + offs, (n2 * c + n1 * s).to(x_ptr.dtype.element_ty), mask=mask)


def _apply_(x, w, positions, cache, eps):
    T, H, D = x.shape
    _norm_rope_inplace_kernel[(T * H,)](
        x, w, positions, cache, H, float(eps), cache.stride(0),
        HEAD_DIM=D, HALF=D // 2, BLOCK_HALF=triton.next_power_of_2(D // 2),
    )  # fmt: skip
    return x


def solution(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    return _apply_(q, q_weight, positions, cos_sin_cache, eps), _apply_(k, k_weight, positions, cos_sin_cache, eps)
