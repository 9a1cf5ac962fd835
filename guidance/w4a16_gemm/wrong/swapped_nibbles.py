"""Wrong: the expert's fused design with the nibbles interleaved the wrong way round.

Column 2j is taken from the high nibble and column 2j + 1 from the low one (the GPTQ int32 and AWQ layouts differ
in nibble order, and this is the slip of porting one to the other). Every weight pair is swapped: O(1) errors.
"""
# expect: incorrect:mismatch

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
        q = tl.interleave(hi, lo).to(tl.float16)  # [BLOCK_K, BLOCK_N]: column 2j from lo, 2j + 1 from hi
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


def solution(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = X.shape
    N = qweight.shape[1] * 2
    assert qweight.shape[0] == K and K % GROUP_SIZE == 0 and scales.shape == (K // GROUP_SIZE, N)
    Y = torch.empty((M, N), dtype=torch.float16, device=X.device)
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
