"""Ladder rung 2 (l1.py + L2.1, L2.2): one program per (batch, head, value block), its state slice on chip.

o_c = tril(q_c k_c^T) v_c + q_c S,  then  S += k_c^T v_c   (chunks of 64 tokens, S the exclusive prefix)

Over l1.py:
- L2.1: the three kernels become one. A program walks the chunks of one (batch, head) in order and keeps its
  D x BLOCK_V slice of the state in fp32 registers from the first chunk to the last, so no state touches HBM:
  q, k, v are read once (per value block) and o written once, one launch. The output uses S before the chunk is
  folded in (L1.2 kept).
- L2.2: BLOCK_V is halved from D (not below 32) until B * H * D / BLOCK_V reaches ~90% of the SM count read from
  the device, so 64 heads fill the H200's 132 SMs with 128 programs while q and k are re-read only twice.

Expected on an H200: the ~3 GB of state round trips of l1.py (minimax-01-16k) disappear, leaving ~1 GB of
q, k, v, o traffic. Left for L3: the products still take fp32 operands where one is fp32 (P, the state, v in
P v: TF32, half the bf16 tensor-core rate) and sum with `+`, not tl.dot's accumulator; default warps, no
pipelining of the chunk loop.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_attn_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, T, stride_h, stride_t, D: tl.constexpr, CHUNK: tl.constexpr, BLOCK_V: tl.constexpr
):  # fmt: skip
    pid_bh = tl.program_id(0)
    pid_v = tl.program_id(1)
    offs_c = tl.arange(0, CHUNK)
    offs_d = tl.arange(0, D)
    offs_v = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    base = pid_bh * stride_h
    causal = offs_c[:, None] >= offs_c[None, :]

    state = tl.zeros([D, BLOCK_V], dtype=tl.float32)  # S[:, v-block], in registers for the whole sequence
    for t0 in range(0, T, CHUNK):
        rows = t0 + offs_c
        mask = (rows < T)[:, None]
        q = tl.load(q_ptr + base + rows[:, None] * stride_t + offs_d[None, :], mask=mask, other=0.0)
        k = tl.load(k_ptr + base + rows[:, None] * stride_t + offs_d[None, :], mask=mask, other=0.0)
        v = tl.load(v_ptr + base + rows[:, None] * stride_t + offs_v[None, :], mask=mask, other=0.0)
        vf = v.to(tl.float32)
        p = tl.where(causal, tl.dot(q, tl.trans(k)), 0.0)
        o = tl.dot(p, vf) + tl.dot(q.to(tl.float32), state)  # exclusive prefix: S before this chunk
        tl.store(o_ptr + base + rows[:, None] * stride_t + offs_v[None, :], o.to(o_ptr.dtype.element_ty), mask=mask)
        state += tl.dot(tl.trans(k).to(tl.float32), vf)


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 132  # the interpreter: take the H200's split so the same code path runs
    return torch.cuda.get_device_properties(device).multi_processor_count


def solution(q, k, v):
    assert q.dim() == 4 and q.shape == k.shape == v.shape, "q, k, v must be [B, H, T, D]"
    B, H, T, D = q.shape
    assert D in (16, 32, 64, 128), "head_dim must be a power of two in [16, 128]"
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    if T == 0 or B * H == 0:
        return o
    num_sms = _num_sms(q.device)
    block_v = D
    while block_v > 32 and B * H * (D // block_v) * 10 < num_sms * 9:
        block_v //= 2
    grid = (B * H, D // block_v)
    _linear_attn_kernel[grid](q, k, v, o, T, q.stride(1), q.stride(2), D=D, CHUNK=64, BLOCK_V=block_v)
    return o
