"""WRONG: wraps the Triton launch in try/except and falls back to a PyTorch time loop.

The kernel is a correct per-sequence chunked scan, but if it fails to compile or launch (say, on a
Triton version or a shape it does not support) the answer silently comes from an eager PyTorch loop
instead -- the benchmark would then time and credit PyTorch, not the kernel. A launch inside
try/except is rejected on sight.
"""
# expect: static:try-fallback

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


def _torch_scan(a, b, offsets):
    h = torch.empty_like(b)
    bounds = offsets.tolist()
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        state = torch.zeros_like(b[0])
        for t in range(start, end):
            state = a[t] * state + b[t]
            h[t] = state
    return h


def solution(a, b, offsets):
    a = a.contiguous()
    b = b.contiguous()
    T, D = a.shape
    num_seqs = offsets.numel() - 1
    h = torch.empty_like(b)
    BLOCK_D = 64
    try:
        _seq_scan_kernel[(num_seqs, triton.cdiv(D, BLOCK_D))](
            a, b, h, offsets, D, a.stride(0), CHUNK=64, BLOCK_D=BLOCK_D, num_warps=4
        )
    except Exception:
        h = _torch_scan(a, b, offsets)
    return h
