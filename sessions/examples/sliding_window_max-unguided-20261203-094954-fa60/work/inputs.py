"""Inputs for sliding_window_max: many rows of a 1-D signal x [B, T] (fp32 or bf16) and a window w.

The rows imitate real signals: a slowly varying baseline (a random walk), an oscillation, noise, and
sparse spikes (transients / outliers), so the windowed maximum changes both gradually and abruptly and
long stretches where the maximum sits at a window edge occur.
"""

import math

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    B, T, w = int(params["B"]), int(params["T"]), int(params["w"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)
    walk = torch.randn(B, T, generator=g, device=device).mul_(0.02).cumsum_(1)
    phase = 2 * math.pi * torch.rand(B, 1, generator=g, device=device)
    freq = 2 * math.pi / (50.0 + 4000.0 * torch.rand(B, 1, generator=g, device=device))
    t = torch.arange(T, dtype=torch.float32, device=device)
    x = walk + torch.sin(freq * t + phase) + 0.3 * torch.randn(B, T, generator=g, device=device)
    spikes = torch.rand(B, T, generator=g, device=device) < 1e-3
    x = torch.where(spikes, x + 5.0 * torch.rand(B, T, generator=g, device=device), x)
    return x.to(dtype).contiguous(), w
