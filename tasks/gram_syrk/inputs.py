"""Inputs for gram_syrk: one tall-skinny batch of feature vectors A [M, N], fp16 or bf16.

Rows are samples (tokens), columns features. The features are correlated (a shared rank-8 component), have
per-feature scales and non-zero means, like real activations; the batch is pre-scaled by 1/sqrt(M), as K-FAC or
whitening code does, so that C = A^T A is the uncentred second-moment matrix with O(1) entries whatever M is
(diagonal about 0.3 to 7). That keeps one absolute tolerance meaningful across workloads.
"""

import math

import torch

_RANK = 8  # shared latent factors: makes off-diagonal entries of C of the same order as the diagonal


def make_inputs(params: dict, seed: int, device) -> tuple:
    M, N = int(params["M"]), int(params["N"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(M, N, generator=g, device=device)
    factors = torch.randn(M, _RANK, generator=g, device=device)
    mixing = torch.randn(_RANK, N, generator=g, device=device) * (0.5 / math.sqrt(_RANK))
    scale = torch.exp(0.3 * torch.randn(N, generator=g, device=device))
    mean = 0.3 * torch.randn(N, generator=g, device=device)
    x.add_(factors @ mixing).mul_(scale).add_(mean).mul_(1.0 / math.sqrt(M))
    return (x.to(dtype).contiguous(),)
