"""Wrong: rotates adjacent pairs (x[2i], x[2i+1]) -- the GPT-J / Meta-Llama complex-number convention.

The norm is right and the angles are right, but Qwen3 and Gemma-3 (and this task) rotate element i with element
i + D/2 (rotate_half). A port from a codebase that uses torch.view_as_complex gets the other pairing; every
element with a non-zero angle comes out wrong.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _norm_rope_interleaved_kernel(
    x_ptr, w_ptr, pos_ptr, cache_ptr, o_ptr, n_heads, eps, stride_cache,
    HEAD_DIM: tl.constexpr, HALF: tl.constexpr, BLOCK_HALF: tl.constexpr,
):  # fmt: skip
    # One program per (token, head): reads D * 2 bytes, writes D * 2 bytes.
    row = tl.program_id(0).to(tl.int64)
    t = row // n_heads
    offs = tl.arange(0, BLOCK_HALF)
    mask = offs < HALF
    even = tl.load(x_ptr + row * HEAD_DIM + 2 * offs, mask=mask, other=0.0).to(tl.float32)
    odd = tl.load(x_ptr + row * HEAD_DIM + 2 * offs + 1, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt((tl.sum(even * even, axis=0) + tl.sum(odd * odd, axis=0)) / HEAD_DIM + eps)
    even = even * rstd * tl.load(w_ptr + 2 * offs, mask=mask, other=0.0).to(tl.float32)
    odd = odd * rstd * tl.load(w_ptr + 2 * offs + 1, mask=mask, other=0.0).to(tl.float32)
    pos = tl.load(pos_ptr + t)
    c = tl.load(cache_ptr + pos * stride_cache + offs, mask=mask, other=0.0)
    s = tl.load(cache_ptr + pos * stride_cache + HALF + offs, mask=mask, other=0.0)
    # BUG: pairs (2i, 2i+1) instead of (i, i + D/2)
    tl.store(o_ptr + row * HEAD_DIM + 2 * offs, (even * c - odd * s).to(o_ptr.dtype.element_ty), mask=mask)
    tl.store(o_ptr + row * HEAD_DIM + 2 * offs + 1, (odd * c + even * s).to(o_ptr.dtype.element_ty), mask=mask)


def _apply(x, w, positions, cache, eps):
    T, H, D = x.shape
    out = torch.empty_like(x)
    _norm_rope_interleaved_kernel[(T * H,)](
        x, w, positions, cache, out, H, float(eps), cache.stride(0),
        HEAD_DIM=D, HALF=D // 2, BLOCK_HALF=triton.next_power_of_2(D // 2),
    )  # fmt: skip
    return out


def solution(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    return _apply(q, q_weight, positions, cos_sin_cache, eps), _apply(k, k_weight, positions, cos_sin_cache, eps)
