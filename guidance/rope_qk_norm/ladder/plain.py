"""Ladder rung 0 (plain): an RMSNorm kernel, then a RoPE kernel, for q and for k. No guidance.

n = x * rsqrt(mean(x^2) + eps) * w;  out = n * cos + rotate_half(n) * sin,  rotate_half(n) = (-n2, n1)

For each tensor, kernel 1 is one program per (token, head): it loads the head's D values, normalises them with
the weight and writes the result in fp32 to a scratch tensor. Kernel 2 is one program per (token, head) again: it
reads the normalised head back, gathers the rotation partner of every element with a permuted index
((d + D/2) mod D, with the sign of the first half flipped), loads the token's table row and stores bf16.
Four launches; q and k are read once and written once, plus an fp32 intermediate written and read back: ~2.5x
the problem's bytes.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, n_ptr, D, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # one (token, head)
    offs = tl.arange(0, BLOCK_D)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)
    tl.store(n_ptr + row * D + offs, x * rstd * w, mask=mask)


@triton.jit
def _rope_kernel(n_ptr, pos_ptr, cache_ptr, o_ptr, n_heads, D, stride_cache, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    t = row // n_heads
    half = D // 2
    offs = tl.arange(0, BLOCK_D)
    mask = offs < D
    n = tl.load(n_ptr + row * D + offs, mask=mask, other=0.0)
    partner = tl.load(n_ptr + row * D + (offs + half) % D, mask=mask, other=0.0)
    rot = tl.where(offs < half, -partner, partner)
    pos = tl.load(pos_ptr + t)
    c = tl.load(cache_ptr + pos * stride_cache + offs % half, mask=mask, other=0.0)
    s = tl.load(cache_ptr + pos * stride_cache + half + offs % half, mask=mask, other=0.0)
    tl.store(o_ptr + row * D + offs, (n * c + rot * s).to(o_ptr.dtype.element_ty), mask=mask)


def _norm_rope(x, w, positions, cache, eps):
    T, H, D = x.shape
    out = torch.empty_like(x)
    normed = torch.empty((T, H, D), dtype=torch.float32, device=x.device)
    block_d = triton.next_power_of_2(D)
    _rmsnorm_kernel[(T * H,)](x, w, normed, D, eps, BLOCK_D=block_d)
    _rope_kernel[(T * H,)](normed, positions, cache, out, H, D, cache.stride(0), BLOCK_D=block_d)
    return out


def solution(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    assert q.dim() == 3 and k.dim() == 3 and q.shape[0] == k.shape[0] and q.shape[2] == k.shape[2]
    assert q.shape[2] % 2 == 0 and cos_sin_cache.stride(1) == 1
    q, k = q.contiguous(), k.contiguous()
    if q.shape[0] == 0:
        return torch.empty_like(q), torch.empty_like(k)
    return _norm_rope(q, q_weight, positions, cos_sin_cache, float(eps)), _norm_rope(
        k, k_weight, positions, cos_sin_cache, float(eps)
    )
