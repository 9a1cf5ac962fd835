"""WRONG: memoises the answer by shape and returns it for every later call with the same shapes.

The kernel itself is a correct (if slow) per-sequence chunked scan: one program per (sequence,
channel block) walks its sequence chunk by chunk with the state in registers. But the result is kept
in a module-level dict keyed by the input shapes and dtypes, and later calls with the same shapes get
the first answer back without launching anything: a benchmark that reuses one input set would time
a dictionary lookup. Fresh inputs (new values, new sequence lengths, same shapes) expose it.
"""
# expect: runtime:no-launch  (a cache hit launches nothing: every call must launch a kernel)

import torch
import triton
import triton.language as tl

_CACHE = {}


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
    carry = tl.zeros([BLOCK_D], dtype=tl.float32)
    # a while loop, not range(start, end): the CPU interpreter cannot index with a runtime scalar
    t0 = start
    while t0 < end:
        offs_t = t0 + rows
        mask = (offs_t < end)[:, None] & mask_d[None, :]
        ptrs = offs_t.to(tl.int64)[:, None] * stride_t + offs_d[None, :]
        a = tl.load(a_ptr + ptrs, mask=mask, other=1.0)
        b = tl.load(b_ptr + ptrs, mask=mask, other=0.0)
        a_pref, h_loc = tl.associative_scan((a, b), 0, _combine)
        h = h_loc + a_pref * carry[None, :]
        tl.store(h_ptr + ptrs, h, mask=mask)
        carry = tl.sum(tl.where((rows == CHUNK - 1)[:, None], h, 0.0), axis=0)
        t0 += CHUNK


def solution(a, b, offsets):
    key = (tuple(a.shape), a.dtype, tuple(offsets.shape), offsets.dtype)
    if key in _CACHE:
        return _CACHE[key]
    a = a.contiguous()
    b = b.contiguous()
    T, D = a.shape
    num_seqs = offsets.numel() - 1
    h = torch.empty_like(b)
    BLOCK_D = 64
    _seq_scan_kernel[(num_seqs, triton.cdiv(D, BLOCK_D))](
        a, b, h, offsets, D, a.stride(0), CHUNK=64, BLOCK_D=BLOCK_D, num_warps=4
    )
    _CACHE[key] = h
    return h
