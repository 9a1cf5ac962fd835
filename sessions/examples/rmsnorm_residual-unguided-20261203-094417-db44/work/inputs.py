"""Inputs for rmsnorm_residual: a sublayer output, the residual stream, the norm weight and eps.

Values imitate a transformer's pre-norm residual stream: the residual is roughly unit-scale with a few
"massive activation" channels (tens of times larger, as observed in Llama-class models), the sublayer
output is smaller, and the learned norm weight sits around 1 with a spread. Nothing is zero.
"""

import torch

EPS = 1e-6


def make_inputs(params: dict, seed: int, device) -> tuple:
    rows = int(params["rows"])
    hidden = int(params["hidden"])
    dtype = getattr(torch, params.get("dtype", "bfloat16"))

    gen = torch.Generator(device=device).manual_seed(seed)
    residual = torch.randn(rows, hidden, generator=gen, device=device, dtype=torch.float32)
    # a handful of outlier channels, the same in every row, as in real residual streams
    n_outliers = max(1, hidden // 1024)
    outlier_cols = torch.randperm(hidden, generator=gen, device=device)[:n_outliers]
    residual[:, outlier_cols] *= 20.0
    x = 0.5 * torch.randn(rows, hidden, generator=gen, device=device, dtype=torch.float32)
    weight = 1.0 + 0.25 * torch.randn(hidden, generator=gen, device=device, dtype=torch.float32)
    return x.to(dtype).contiguous(), residual.to(dtype).contiguous(), weight.to(dtype).contiguous(), EPS
