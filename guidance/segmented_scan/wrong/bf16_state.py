"""WRONG: carries the recurrent state between chunks in bfloat16 to save registers.

A per-sequence chunked scan whose within-chunk scan is fp32, but the state handed from one chunk to
the next is rounded to bfloat16 (8 significant bits, relative error up to 2^-9 ~ 2e-3). With |h| up to
~10 the rounding alone is ~1e-2 absolute, far beyond atol 1e-5 + rtol 1e-4 * |h|, and it recurs at
every chunk boundary of every sequence longer than one chunk. The task's tolerance exists to reject
exactly this kind of reduced-precision state.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _combine(a_l, b_l, a_r, b_r):
    return a_l * a_r, a_r * b_l + b_r


@triton.jit
def _seq_scan_kernel(a_ptr, b_ptr, h_ptr, offsets_ptr, D, stride_t, CHUNK: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_s = tl.program_id(0)
    pid_d = tl.program_id(1)
    start = tl.load(offsets_ptr + pid_s).to(tl.int32)
    end = tl.load(offsets_ptr + pid_s + 1).to(tl.int32)
    rows = tl.arange(0, CHUNK)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < D
    carry = tl.zeros([BLOCK_D], dtype=tl.bfloat16)
    # a while loop, not range(start, end): the CPU interpreter cannot index with a runtime scalar
    t0 = start
    while t0 < end:
        offs_t = t0 + rows
        mask = (offs_t < end)[:, None] & mask_d[None, :]
        ptrs = offs_t.to(tl.int64)[:, None] * stride_t + offs_d[None, :]
        a = tl.load(a_ptr + ptrs, mask=mask, other=1.0)
        b = tl.load(b_ptr + ptrs, mask=mask, other=0.0)
        a_pref, h_loc = tl.associative_scan((a, b), 0, _combine)
        h = h_loc + a_pref * carry.to(tl.float32)[None, :]
        tl.store(h_ptr + ptrs, h, mask=mask)
        carry = tl.sum(tl.where((rows == CHUNK - 1)[:, None], h, 0.0), axis=0).to(tl.bfloat16)
        t0 += CHUNK


def solution(a, b, offsets):
    a = a.contiguous()
    b = b.contiguous()
    T, D = a.shape
    num_seqs = offsets.numel() - 1
    h = torch.empty_like(b)
    BLOCK_D = 64
    _seq_scan_kernel[(num_seqs, triton.cdiv(D, BLOCK_D))](
        a, b, h, offsets, D, a.stride(0), CHUNK=64, BLOCK_D=BLOCK_D, num_warps=4
    )
    return h
