"""Y = X @ dequant(W) for a 4-bit weight (symmetric, zero point 8, group size 128 along K, packed two per byte
along N) and fp16 activations: a weight-only-quantised linear layer of an LLM, decode (small M) and prefill.

Design (one guidance item per idea):

* Decode and small M: dequantise in registers inside the k-loop (L1.1). Each step loads a [BLOCK_K, BLOCK_N / 2]
  tile of packed bytes, splits the nibbles, interleaves them back to [BLOCK_K, BLOCK_N] (byte j holds columns 2j
  and 2j + 1), subtracts 8 and multiplies by the group's scales in fp16, and feeds the fp16 tile to tl.dot with an
  fp32 accumulator. The fp16 weight never exists in memory: the weight crosses HBM as 0.5 byte per element.
* One scale row per step (L1.2). BLOCK_K divides the group size (128), so a step lies in one group and needs one
  [BLOCK_N] vector of scales, broadcast over the tile; (q - 8) * s in fp16 is exactly the reference's rounding.
* Prefill: dequantise once, then a tensor-core GEMM (L1.3). With M in the thousands the weight's bytes no longer
  matter; the in-loop unpacking does (CUDA-core work at every k-step, plus a register -> shared-memory copy of
  the dequantised tile, since Hopper's wgmma reads B from shared memory): the best fused kernel reached 338
  TFLOP/s on an H200, no faster than the reference. A pass writing W as fp16 [K, N] (K * N * 2.5 bytes of
  traffic, 85 us for 4096 x 28672, ~3.5 TB/s) and a plain persistent GEMM (~640 TFLOP/s) take 1.5 ms against
  3.6 ms fused (benchmarks/w4a16_designs.py). The pass pays for itself once the faster GEMM saves 85 us: at
  ~280 against ~640 TFLOP/s that is ~180 rows of 2 * K * N FLOP (an estimate from these rates, not a measurement
  at medium M), so M >= 256 takes it.
* Decode: split-K over all SMs (L2.1). With M <= 64 the GEMM is a weight stream (4 bytes of weight per
  X element-row) and there are only N / BLOCK_N column tiles (64 for N = 8192): too few to keep 132 SMs pulling
  from HBM. The K range is cut into `split` slices; program (tile, slice) writes an fp32 partial to a workspace
  [split, M, N] and a small kernel sums the slices in a fixed order and casts to fp16. `split` comes from a cost
  model (waves of programs x weight bytes per program + the workspace traffic), so large N gets little or none.
* Prefill: grouped tiles, persistent (L2.2). Tiles are ordered in groups of GROUP_M row blocks with the column
  block slowest, so the tiles in flight share X row panels and W column panels through L2 and each byte of X and
  W comes from HBM about once; one program per SM walks the tiles (the next tile's loads overlap this one's store).
* Tiles (L3.1, L3.2). Decode: BLOCK_M = 16..64 (the smallest tl.dot M that covers the batch), BLOCK_N = 128,
  BLOCK_K = 128 (one group per step, 8 KB of packed weight per step), 4 warps, 4 stages; 64 < M < 256: the fused
  kernel at 128 x 128 x 64, 8 warps, 3 stages. Prefill GEMM: 128 x 256 x 64 on 8 warps (two warpgroups of
  64 x 256 wgmma), 3 stages, X / W / Y through TMA tensor descriptors. Packed bytes are loaded as rows of
  BLOCK_N / 2 contiguous bytes per k, the nibbles unpacked with an and/shift on 8-bit lanes, joined by tl.interleave.

Memory traffic per call: decode, X once, K * N / 2 bytes of weight once, K / 128 * N * 2 bytes of scales once, Y
written once (split > 1: + 2 * split * M * N * 4 bytes of partials); prefill, + K * N * 4 bytes for the fp16 W
written and read back.
"""

import functools

import torch
import triton
import triton.language as tl

GROUP_SIZE = 128
_INTERPRETER_SMS = 16


@triton.jit
def w4a16_kernel(
    x_ptr, qw_ptr, s_ptr, out_ptr, M, N, K,
    stride_xm, stride_qk, stride_sg, stride_os, stride_om,
    k_per_split,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_SIZE: tl.constexpr, GROUP_M: tl.constexpr, SPLIT: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    size_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % size_m
    pid_n = (pid % per_group) // size_m

    HALF_N: tl.constexpr = BLOCK_N // 2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_j = pid_n * HALF_N + tl.arange(0, HALF_N)
    offs_k = tl.arange(0, BLOCK_K)
    k_start = pid_k * k_per_split
    x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm + (k_start + offs_k)[None, :]
    q_ptrs = qw_ptr + (k_start + offs_k).to(tl.int64)[:, None] * stride_qk + offs_j[None, :]
    m_ok = offs_m[:, None] < M
    j_ok = offs_j[None, :] < N // 2
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_start, tl.minimum(k_start + k_per_split, K), BLOCK_K):
        x = tl.load(x_ptrs, mask=m_ok, other=0.0)
        packed = tl.load(q_ptrs, mask=j_ok, other=0)
        lo = (packed & 0xF).to(tl.int16) - 8
        hi = (packed >> 4).to(tl.int16) - 8
        q = tl.interleave(lo, hi).to(tl.float16)  # [BLOCK_K, BLOCK_N]: column 2j from lo, 2j + 1 from hi
        s = tl.load(s_ptr + (k // GROUP_SIZE) * stride_sg + offs_n, mask=offs_n < N, other=0.0)
        w = q * s[None, :]  # fp16 product of exact operands: one rounding, as in the reference
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        q_ptrs += BLOCK_K * stride_qk
    out_ptrs = out_ptr + pid_k * stride_os + offs_m.to(tl.int64)[:, None] * stride_om + offs_n[None, :]
    mask = m_ok & (offs_n[None, :] < N)
    if SPLIT:
        tl.store(out_ptrs, acc, mask=mask)  # fp32 partial of this K slice
    else:
        tl.store(out_ptrs, acc.to(tl.float16), mask=mask)


@triton.jit
def split_sum_kernel(ws_ptr, y_ptr, numel, n_splits, BLOCK: tl.constexpr):
    """Y = sum over slices of the fp32 partials, in slice order (deterministic), cast to fp16."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, n_splits):
        acc += tl.load(ws_ptr + s * numel + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, acc.to(tl.float16), mask=mask)


@triton.jit
def dequant_kernel(qw_ptr, s_ptr, w_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_SIZE: tl.constexpr):
    """W[k, n] = (q[k, n] - 8) * s[k // 128, n] as fp16 [K, N]: the reference's rounding, once per call."""
    HALF_N: tl.constexpr = BLOCK_N // 2
    offs_k = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)  # BLOCK_K divides K (a multiple of 128)
    offs_j = tl.program_id(1) * HALF_N + tl.arange(0, HALF_N)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    packed = tl.load(qw_ptr + offs_k.to(tl.int64)[:, None] * (N // 2) + offs_j[None, :], mask=offs_j[None, :] < N // 2)
    lo = (packed & 0xF).to(tl.int16) - 8
    hi = (packed >> 4).to(tl.int16) - 8
    s = tl.load(s_ptr + (tl.program_id(0) * BLOCK_K // GROUP_SIZE) * N + offs_n, mask=offs_n < N, other=0.0)
    w = tl.interleave(lo, hi).to(tl.float16) * s[None, :]
    tl.store(w_ptr + offs_k.to(tl.int64)[:, None] * N + offs_n[None, :], w, mask=offs_n[None, :] < N)


@triton.jit
def gemm_kernel(
    x_ptr, w_ptr, y_ptr, M, N, K, num_programs,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    """Y = X @ W (fp16, fp32 accumulation), persistent: program p takes tiles p, p + num_programs, ... in grouped
    order. TMA descriptors zero-fill out-of-range loads and clip the store, so no masks."""
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    for tile in tl.range(tl.program_id(0), num_m * num_n, num_programs, flatten=True):
        first_m = (tile // per_group) * GROUP_M
        size_m = tl.minimum(num_m - first_m, GROUP_M)
        pid_m = first_m + (tile % per_group) % size_m
        pid_n = (tile % per_group) // size_m
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            acc = tl.dot(x_desc.load([pid_m * BLOCK_M, k]), w_desc.load([k, pid_n * BLOCK_N]), acc)
        y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@functools.cache
def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return _INTERPRETER_SMS
    return torch.cuda.get_device_properties(device).multi_processor_count


def _choose_split(tiles: int, k_steps: int, M: int, N: int, block_n: int, block_k: int, sms: int) -> int:
    """Split count minimising (waves x weight bytes per program) plus the partials' traffic per SM."""
    best, best_cost = 1, float("inf")
    for split in (1, 2, 4, 8, 16):
        if split > k_steps:
            break
        steps = triton.cdiv(k_steps, split)
        waves = triton.cdiv(tiles * split, sms)
        cost = waves * steps * block_k * block_n / 2
        if split > 1:
            cost += 2 * split * M * N * 4 / sms
        if cost < best_cost:
            best, best_cost = split, cost
    return best


_PREFILL_M = 256  # from here on, dequantise once and run a tensor-core GEMM (see the module docstring)


def _prefill(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    M, K = X.shape
    N = Y.shape[1]
    W = torch.empty((K, N), dtype=torch.float16, device=X.device)  # rebuilt every call from this call's weight
    dequant_kernel[(K // 32, triton.cdiv(N, 256))](
        qweight, scales, W, K, N, BLOCK_K=32, BLOCK_N=256, GROUP_SIZE=GROUP_SIZE, num_warps=4
    )
    # device-side tensor descriptors need global scratch memory per launch: the allocator only allocates
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=X.device))
    BLOCK_M, BLOCK_N = 128, 256
    programs = min(triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), _sm_count(X.device))
    gemm_kernel[(programs,)](
        X, W, Y, M, N, K, programs, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3
    )
    return Y


def solution(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = X.shape
    N = qweight.shape[1] * 2
    assert qweight.shape[0] == K and K % GROUP_SIZE == 0 and scales.shape == (K // GROUP_SIZE, N)
    Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
    # TMA: 16-byte-aligned bases and row strides (K is a multiple of 128; N * 2 bytes needs N % 8 == 0)
    if M >= _PREFILL_M and N % 8 == 0 and X.is_contiguous() and X.data_ptr() % 16 == 0:
        return _prefill(X, qweight, scales, Y)
    if M <= 64:  # decode: a weight stream
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = max(16, triton.next_power_of_2(M)), 128, 128, 4, 4
    else:  # prefill: tensor-core bound
        BLOCK_M, BLOCK_N, BLOCK_K, warps, stages = 128, 128, 64, 8, 3
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    k_steps = K // BLOCK_K
    split = _choose_split(tiles, k_steps, M, N, BLOCK_N, BLOCK_K, _sm_count(X.device)) if M <= 64 else 1
    k_per_split = triton.cdiv(k_steps, split) * BLOCK_K
    split = triton.cdiv(K, k_per_split)  # no empty slice
    out = torch.empty((split, M, N), dtype=torch.float32, device=X.device) if split > 1 else Y
    w4a16_kernel[(tiles, split)](
        X, qweight, scales, out, M, N, K,
        X.stride(0), qweight.stride(0), scales.stride(0), out.stride(0) if split > 1 else 0, N,
        k_per_split,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_SIZE=GROUP_SIZE, GROUP_M=8, SPLIT=split > 1,
        num_warps=warps, num_stages=stages,
    )  # fmt: skip
    if split > 1:
        BLOCK = 1024
        split_sum_kernel[(triton.cdiv(M * N, BLOCK),)](out, Y, M * N, split, BLOCK=BLOCK, num_warps=4)
    return Y
