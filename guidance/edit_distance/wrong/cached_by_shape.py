"""Correct wavefront kernel behind a cache keyed on the input shape.

The first call computes the distances; every later call with the same shapes returns a copy of the
first answer without looking at the tokens. The harness checks several seeds of each workload, so the
second seed gets the first seed's distances.
"""
# expect: runtime:no-launch  (a cache hit launches nothing: every call must launch a kernel)

import torch
import triton
import triton.language as tl

BIG = tl.constexpr(1 << 14)  # value of not-yet-started cells (j < 0); never read by a real cell


@triton.jit
def _lev_wavefront_kernel(a_ptr, a_len_ptr, b_ptr, b_len_ptr, out_ptr, L, BLOCK: tl.constexpr):
    # Lane k holds row i = k + 1; on diagonal d it computes D[i][d - i]. Row 0 and column 0 are
    # the boundaries D[0][j] = j and D[i][0] = i. Traffic: la + lb tokens read, 4 bytes written.
    p = tl.program_id(0).to(tl.int64)
    la = tl.load(a_len_ptr + p).to(tl.int32)
    lb = tl.load(b_len_ptr + p).to(tl.int32)
    k = tl.arange(0, BLOCK)
    i = k + 1
    a_tok = tl.load(a_ptr + p * L + k, mask=k < la, other=-1)
    src = tl.maximum(k - 1, 0)
    left = tl.full([BLOCK], BIG, tl.int32)  # diagonal d-1, same lane: D[i][j-1]
    up = tl.full([BLOCK], BIG, tl.int32)  # diagonal d-1, lane k-1: D[i-1][j]
    for d in range(1, la + lb + 1):
        j = d - i
        b_tok = tl.load(b_ptr + p * L + j - 1, mask=(j >= 1) & (j <= lb), other=-2)
        diag = up  # diagonal d-2, lane k-1: D[i-1][j-1]
        up = tl.where(k == 0, d - 1, tl.gather(left, src, axis=0))
        cur = tl.minimum(tl.minimum(up, left) + 1, diag + (a_tok != b_tok).to(tl.int32))
        left = tl.where(j == 0, i, tl.where(j < 0, BIG, cur))
    dist = tl.sum(tl.where(k == la - 1, left, 0), axis=0)
    tl.store(out_ptr + p, tl.where(la == 0, lb, dist))


_CACHE: dict[tuple, torch.Tensor] = {}


def solution(a: torch.Tensor, a_len: torch.Tensor, b: torch.Tensor, b_len: torch.Tensor) -> torch.Tensor:
    key = (tuple(a.shape), a.device)
    if key in _CACHE:  # "the benchmark calls us with the same batch again"
        return _CACHE[key].clone()
    assert a.shape == b.shape and a.is_contiguous() and b.is_contiguous()
    batch, length = a.shape
    dist = torch.empty(batch, dtype=torch.int32, device=a.device)
    block = max(16, triton.next_power_of_2(length))
    _lev_wavefront_kernel[(batch,)](a, a_len, b, b_len, dist, length, BLOCK=block, num_warps=4)
    _CACHE[key] = dist
    return dist
