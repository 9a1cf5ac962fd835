"""Inputs for logcumsumexp: x [rows, T] in float32 or bfloat16.

Each row is Gaussian noise (std 2.5) around a per-row offset drawn with std `offset_std`: logits
(offsets of a few units) or log-space recurrent states (offsets of tens to hundreds, as in a
log-space scan of a long sequence). When offset_std > 0 and there are two rows or more, the first
row sits at +2.5 * offset_std and the second at -2.5 * offset_std, so every workload with large
offsets has rows where exp(x) overflows or underflows fp32.
"""

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    rows, length = int(params["rows"]), int(params["length"])
    offset_std = float(params["offset_std"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)
    offsets = offset_std * torch.randn(rows, 1, generator=g, device=device)
    if offset_std > 0 and rows >= 2:
        offsets[0], offsets[1] = 2.5 * offset_std, -2.5 * offset_std
    x = offsets + 2.5 * torch.randn(rows, length, generator=g, device=device)
    return (x.to(dtype).contiguous(),)
