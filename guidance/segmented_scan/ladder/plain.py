"""Ladder rung 0 (plain): the reference's time loop moved into Triton, one program per (sequence, channel block).

h[t] = a[t] * h[t-1] + b[t], restarting from h = 0 at every sequence start.

The obvious port of the reference: each program owns one sequence and BLOCK_D = 128 contiguous channels and
walks that sequence's rows one at a time, keeping h in registers (one fp32 per thread per step) and storing
each row of h as it goes. Sequences are independent, so there is no communication and no workspace.

Traffic is the minimum (a and b read once, h written once: 12 bytes per element), but the time of a program
is its sequence's length times the latency of one step, and the parallelism is num_seqs x D / BLOCK_D
programs: 80 programs for 4 documents of width 2560, each walking 6k-11k rows.
"""

import torch
import triton
import triton.language as tl

_BLOCK_D = 128
_NUM_WARPS = 4


@triton.jit
def _seq_scan_kernel(a_ptr, b_ptr, h_ptr, offsets_ptr, D, stride_t, BLOCK_D: tl.constexpr):
    seq = tl.program_id(0)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < D
    start = tl.load(offsets_ptr + seq).to(tl.int64)
    end = tl.load(offsets_ptr + seq + 1).to(tl.int64)

    h = tl.zeros([BLOCK_D], dtype=tl.float32)
    for t in range(start, end):
        row = t * stride_t
        a = tl.load(a_ptr + row + offs_d, mask=mask_d, other=0.0)
        b = tl.load(b_ptr + row + offs_d, mask=mask_d, other=0.0)
        h = a * h + b
        tl.store(h_ptr + row + offs_d, h, mask=mask_d)


def solution(a, b, offsets):
    assert a.dim() == 2 and a.shape == b.shape, "a and b must be [T, D] of the same shape"
    assert a.dtype == torch.float32 and b.dtype == torch.float32
    assert offsets.dim() == 1 and offsets.dtype in (torch.int32, torch.int64) and offsets.numel() >= 2
    a = a.contiguous()
    b = b.contiguous()
    offsets = offsets.contiguous()
    T, D = a.shape
    h = torch.empty_like(b)
    num_seqs = offsets.numel() - 1
    if a.numel() == 0:
        return h
    _seq_scan_kernel[(num_seqs, triton.cdiv(D, _BLOCK_D))](
        a, b, h, offsets, D, a.stride(0), BLOCK_D=_BLOCK_D, num_warps=_NUM_WARPS
    )
    return h
