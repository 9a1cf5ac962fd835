"""Inputs for layernorm_backward: the forward input, the upstream gradient, the weight and the saved statistics.

x imitates a transformer's pre-norm activations (a per-row offset and scale, a few large outlier channels);
mean and rstd are what the forward pass saved for it (computed in fp32 from the bf16 x, eps = 1e-5, as
torch.nn.functional.layer_norm does). The weight is fp32 (mixed-precision training keeps norm parameters in
fp32) and sits around 1; dy is roughly unit-scale. Nothing is zero.
"""

import torch

EPS = 1e-5


def make_inputs(params: dict, seed: int, device) -> tuple:
    rows = int(params["rows"])
    hidden = int(params["hidden"])
    dtype = getattr(torch, params.get("dtype", "bfloat16"))

    gen = torch.Generator(device=device).manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, device=device, dtype=torch.float32)

    x = randn(rows, hidden)
    n_outliers = max(1, hidden // 1024)
    x[:, torch.randperm(hidden, generator=gen, device=device)[:n_outliers]] *= 10.0
    x = x * (0.5 + torch.rand(rows, 1, generator=gen, device=device)) + 0.3 * randn(rows, 1)
    x = x.to(dtype)
    dy = randn(rows, hidden).to(dtype)
    weight = 1.0 + 0.2 * randn(hidden)

    xf = x.float()
    mean = xf.mean(dim=1)
    rstd = torch.rsqrt(xf.var(dim=1, unbiased=False) + EPS)
    return tuple(t.contiguous() for t in (x, dy, weight, mean, rstd))
