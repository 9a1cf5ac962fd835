"""Inputs for fp8_rowwise_quant: LLM activations X [M, N] in bf16, with the features that make per-row scaling
matter: per-token magnitudes spread over two orders of magnitude, a few outlier channels ("massive activations")
that set the row maximum, and a few all-zero rows (padding tokens), which exercise the zero-row guard."""

import torch

_OUTLIER_CHANNELS = 4
_ZERO_ROW_EVERY = 97  # roughly 1% of the rows are padding


def make_inputs(params: dict, seed: int, device) -> tuple:
    M, N = int(params["M"]), int(params["N"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(M, N, generator=g, device=device)
    x.mul_(torch.exp(1.2 * torch.randn(M, 1, generator=g, device=device)))  # per-token scale, ~0.03 to ~30
    channels = torch.randint(0, N, (_OUTLIER_CHANNELS,), generator=g, device=device)
    x[:, channels] *= 20.0
    # the first zero row falls inside every M: a seed past M left a small workload with no padding row to test
    x[seed % min(_ZERO_ROW_EVERY, M) :: _ZERO_ROW_EVERY] = 0.0
    return (x.to(dtype).contiguous(),)
