"""Computes the distance matrix in a Triton kernel, then hands the selection to torch.topk.

The kernel part is right (and exact); the k nearest are then taken with torch.topk on an int64
(distance, index) key, which is the reference's own method and forbidden by this task: selecting the k
nearest is half of the problem and must happen in Triton.
"""
# expect: static:forbidden-call

import torch
import triton
import triton.language as tl


@triton.jit
def _dist_kernel(q_ptr, k_ptr, d_ptr, M, N, D, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # One [BLOCK_M, BLOCK_N] tile of |q|^2 + |k|^2 - 2 q.k; writes BLOCK_M * BLOCK_N * 4 bytes.
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m, mask_n = offs_m < M, offs_n < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    qn = tl.zeros([BLOCK_M], dtype=tl.float32)
    kn = tl.zeros([BLOCK_N], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        dd = d0 + tl.arange(0, BLOCK_D)
        q = tl.load(q_ptr + offs_m[:, None] * D + dd[None, :], mask=mask_m[:, None] & (dd[None, :] < D), other=0.0)
        kt = tl.load(k_ptr + offs_n[None, :] * D + dd[:, None], mask=mask_n[None, :] & (dd[:, None] < D), other=0.0)
        acc = tl.dot(q, kt, acc)
        qf, kf = q.to(tl.float32), kt.to(tl.float32)
        qn += tl.sum(qf * qf, axis=1)
        kn += tl.sum(kf * kf, axis=0)
    tl.store(d_ptr + offs_m[:, None] * N + offs_n[None, :], qn[:, None] + kn[None, :] - 2.0 * acc,
             mask=mask_m[:, None] & mask_n[None, :])  # fmt: skip


def solution(queries: torch.Tensor, keys: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    M, D = queries.shape
    N = keys.shape[0]
    dist = torch.empty((M, N), dtype=torch.float32, device=queries.device)
    _dist_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](
        queries, keys, dist, M, N, D, BLOCK_M=64, BLOCK_N=64, BLOCK_D=32, num_warps=4
    )
    order = dist.long() * N + torch.arange(N, device=dist.device)
    key = torch.topk(order, k, dim=1, largest=False).values
    idx = key % N
    return idx, dist.gather(1, idx)
