"""Causal linear attention in the chunked form, one program per (batch, head, value block), state on chip.

o_t = sum_{s <= t} (q_t . k_s) v_s.  Split T into chunks of C = 64 tokens. For chunk c with rows q_c, k_c, v_c
and S = sum over earlier chunks of k^T v (a D x D state):

    o_c = tril(q_c k_c^T) v_c  +  q_c S        then        S += k_c^T v_c

so the T x T attention matrix never exists: per chunk there are four small matmuls, three of them on tensor
cores with M = 64. Work: ~4 T D^2 + 4 T C D flops per (batch, head) instead of T^2 D.

Design:
- One program per (batch, head, block of BLOCK_V value columns). Its slice of the state, S[:, v-block]
  (D x BLOCK_V fp32), lives in registers from the first chunk to the last: it is never written to memory,
  so q, k, v are read once per value block and o is written once. The chunks of one program run in order
  (the state is a prefix sum); the parallelism is B * H * (D / BLOCK_V) programs. BLOCK_V is chosen so that
  this fills the 132 SMs; the price is that q and k are re-read once per value block (from L2 when the
  value-block programs of a head run together, which they do: they are adjacent in the grid).
- The intra-chunk part: P = q_c k_c^T in fp32 (tensor cores, bf16 operands), the causal mask applied to P in
  registers (a where on row >= col), P cast to bf16 and multiplied by v_c, accumulated in fp32.
- The inter-chunk part: q_c (bf16) times the state cast to bf16, accumulated into the same fp32 tile. The
  cast costs ~2^-9 relative on S (it is the exclusive prefix, so the error does not compound: S itself stays
  fp32); a PyTorch emulation of these roundings against an fp64 reference (CPU, T = 16384, D = 128) needs
  atol 0.09 at rtol 1.6e-2, under half the tolerance.
- The state update uses tl.dot's accumulator: S = dot(k_c^T, v_c, S), fp32.
- Chunk 64, 4 warps, the chunk loop pipelined over 3 stages: each chunk's q, k, v tiles are loaded two chunks
  ahead. Measured on one H200 (2026-12-03, `python3 benchmarks/chunked_linear_designs.py` at commit 3e8c19a,
  do_bench with the L2 flushed): 351.9 / 93.0 / 114.5 us on
  minimax-01-16k / linearized-llama3-8b-4k / gpt2-medium-linear-8k, where 8 warps over 2 stages (this
  kernel until then) took 683.1 / 181.3 / 257.5 and flash-linear-attention's two-kernel form 716.8 / 189.3 /
  164.4. The stage sweep says that at one program per SM the loop waits on its loads more than on its four
  products: at 4 warps, 1, 2 and 3 stages took 737.4, 528.5 and 351.9 us on minimax (2.9, 2.1, 1.4 us a
  chunk), each chunk of prefetch distance saving 0.4-0.8 us a chunk on every workload. A lone program per SM
  has in flight only the chunks it has prefetched (40 KB a chunk at D = 128), so the prefetch depth sets how
  much of the load latency is hidden.
  One warpgroup (4 warps) issues each 64-row product alone; 8 warps split it by columns and double the threads
  at each barrier (2/SM: 761.6 on 8 warps against 622.0 on 4). Registers: the state slice (D x BLOCK_V fp32,
  64 a thread at 128 x 64), P and the output tile; shared memory: 3 x (q, k, v) tiles and the state's operand
  copy, 136 KB at D = 128 (the compiler's figure for sm_90).
- T need not be a multiple of 64: the last chunk's rows are masked (zero k, v rows add nothing).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _linear_attn_fwd_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    T,
    stride_qh,
    stride_qt,
    stride_kh,
    stride_kt,
    stride_vh,
    stride_vt,
    stride_oh,
    stride_ot,
    D: tl.constexpr,
    CHUNK: tl.constexpr,
    BLOCK_V: tl.constexpr,
    NUM_STAGES: tl.constexpr,
):
    pid_bh = tl.program_id(0).to(tl.int64)  # batch * heads, flattened (the tensors are contiguous)
    pid_v = tl.program_id(1)
    offs_c = tl.arange(0, CHUNK)
    offs_d = tl.arange(0, D)
    offs_v = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    q_base = q_ptr + pid_bh * stride_qh
    k_base = k_ptr + pid_bh * stride_kh
    v_base = v_ptr + pid_bh * stride_vh
    o_base = o_ptr + pid_bh * stride_oh
    causal = offs_c[:, None] >= offs_c[None, :]

    # this program's slice of the state: D x BLOCK_V fp32, in registers for the whole sequence
    state = tl.zeros([D, BLOCK_V], dtype=tl.float32)
    for t0 in tl.range(0, T, CHUNK, num_stages=NUM_STAGES):
        rows = t0 + offs_c
        mask_t = (rows < T)[:, None]
        # per chunk: q and k (C x D) and v (C x BLOCK_V) read once, o (C x BLOCK_V) written once
        q = tl.load(q_base + rows[:, None] * stride_qt + offs_d[None, :], mask=mask_t, other=0.0)
        k = tl.load(k_base + rows[:, None] * stride_kt + offs_d[None, :], mask=mask_t, other=0.0)
        v = tl.load(v_base + rows[:, None] * stride_vt + offs_v[None, :], mask=mask_t, other=0.0)

        # intra-chunk: tril(q k^T) v
        p = tl.dot(q, tl.trans(k))
        p = tl.where(causal, p, 0.0)
        o = tl.dot(p.to(v.dtype), v)
        # inter-chunk: q times the state of all earlier chunks (the exclusive prefix)
        o = tl.dot(q, state.to(q.dtype), o)
        tl.store(o_base + rows[:, None] * stride_ot + offs_v[None, :], o.to(o_ptr.dtype.element_ty), mask=mask_t)

        # then fold this chunk in: S += k^T v
        state = tl.dot(tl.trans(k), v, state)


_SM_COUNT = {}


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 132  # the interpreter runs one program at a time; pick the H200's split for the same code path
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


def _block_v(bh: int, head_dim: int, num_sms: int) -> int:
    """The widest value block (fewest re-reads of q and k) that still gives about one program per SM (>= 90%)."""
    block_v = head_dim
    while block_v > 32 and bh * (head_dim // block_v) * 10 < num_sms * 9:
        block_v //= 2
    return block_v


def _config(bh: int, head_dim: int, num_sms: int) -> tuple[int, int, int, int]:
    """(CHUNK, BLOCK_V, num_warps, num_stages) for B * H = bh heads of head_dim on num_sms SMs: chunks of 64 tokens,
    about one program per SM, 4 warps, the chunk loop pipelined over 3 stages (the fastest of the designs
    benchmarks/chunked_linear_designs.py timed on the H200, on every workload)."""
    return 64, _block_v(bh, head_dim, num_sms), 4, 3


def solution(q, k, v):
    assert q.dim() == 4 and q.shape == k.shape == v.shape, "q, k, v must be [B, H, T, D]"
    assert q.is_contiguous() and k.is_contiguous() and v.is_contiguous()
    B, H, T, D = q.shape
    assert D in (16, 32, 64, 128), "head_dim must be a power of two in [16, 128]"
    o = torch.empty_like(q)
    if T == 0 or B * H == 0:
        return o
    chunk, block_v, num_warps, num_stages = _config(B * H, D, _num_sms(q.device))
    grid = (B * H, D // block_v)
    _linear_attn_fwd_kernel[grid](
        q,
        k,
        v,
        o,
        T,
        q.stride(1),
        q.stride(2),
        k.stride(1),
        k.stride(2),
        v.stride(1),
        v.stride(2),
        o.stride(1),
        o.stride(2),
        D=D,
        CHUNK=chunk,
        BLOCK_V=block_v,
        NUM_STAGES=num_stages,
        num_warps=num_warps,
    )
    return o
