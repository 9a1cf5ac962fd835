"""Inputs for tril_matmul: a square A [N, N] whose lower triangle is the operator (its upper triangle holds
unrelated values, as when a full buffer of scores or a dense factor is passed and only its lower part is
meaningful) and a panel B [N, K], both fp16 or bf16.

A is scaled by 1/sqrt(N) so that every row of C = tril(A) @ B has O(1) or smaller entries (row i sums i + 1
products), which keeps one absolute tolerance meaningful across workloads. The upper triangle of A is large
(std 1) so that a solution which lets any of it through is far off.
"""

import math

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    N, K = int(params["N"]), int(params["K"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)
    A = torch.randn(N, N, generator=g, device=device)
    # one draw for both triangles: the lower one (diagonal included) scaled by 1/sqrt(N), the upper left at std 1
    upper = A.triu(1)
    A.tril_().mul_(1.0 / math.sqrt(N)).add_(upper)
    B = torch.randn(N, K, generator=g, device=device)
    return (A.to(dtype).contiguous(), B.to(dtype).contiguous())
