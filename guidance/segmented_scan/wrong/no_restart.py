"""WRONG: scans the whole packed array as one sequence and never looks at `offsets`.

Each program owns a block of channels and walks the time axis chunk by chunk, carrying the state in
registers between chunks (a correct chunked scan for ONE sequence). Because it never restarts at
sequence starts, every sequence after the first inherits the decayed state of the one before it:
h[start] = a[start] * h_prev_seq_end + b[start] instead of b[start]. The error decays along the
sequence but is O(1) at each start.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _combine(a_l, b_l, a_r, b_r):
    return a_l * a_r, a_r * b_l + b_r


@triton.jit
def _scan_kernel(a_ptr, b_ptr, h_ptr, T, D, stride_t, CHUNK: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_d = tl.program_id(0)
    rows = tl.arange(0, CHUNK)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < D
    carry = tl.zeros([BLOCK_D], dtype=tl.float32)
    # a while loop, not range(T): the CPU interpreter cannot index with a runtime scalar under numpy 2
    t0 = 0
    while t0 < T:
        offs_t = t0 + rows
        mask = (offs_t < T)[:, None] & mask_d[None, :]
        ptrs = offs_t.to(tl.int64)[:, None] * stride_t + offs_d[None, :]
        a = tl.load(a_ptr + ptrs, mask=mask, other=1.0)
        b = tl.load(b_ptr + ptrs, mask=mask, other=0.0)
        a_pref, h_loc = tl.associative_scan((a, b), 0, _combine)
        h = h_loc + a_pref * carry[None, :]
        tl.store(h_ptr + ptrs, h, mask=mask)
        carry = tl.sum(tl.where((rows == CHUNK - 1)[:, None], h, 0.0), axis=0)
        t0 += CHUNK


def solution(a, b, offsets):
    a = a.contiguous()
    b = b.contiguous()
    T, D = a.shape
    h = torch.empty_like(b)
    BLOCK_D = 32
    _scan_kernel[(triton.cdiv(D, BLOCK_D),)](a, b, h, T, D, a.stride(0), CHUNK=128, BLOCK_D=BLOCK_D, num_warps=4)
    return h
