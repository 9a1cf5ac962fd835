"""Inputs for stream_compaction: a 1-D value array and a boolean keep-mask of a given density.

Survivors are drawn independently with probability `density`, but in runs (the keep probability of
an element follows a slowly varying local rate), as in thresholded gradients or occupied-cell masks where
kept entries cluster: some stretches of the array are nearly full and others nearly empty.
Values are standard normal (no zeros, so a missing or misplaced survivor always shows).
"""

import torch

_RUN = 4096  # elements sharing one local keep-rate


def make_inputs(params: dict, seed: int, device) -> tuple:
    n = int(params["n"])
    density = float(params["density"])
    dtype = getattr(torch, params.get("dtype", "float32"))
    assert 0.0 < density < 1.0

    gen = torch.Generator(device=device).manual_seed(seed)
    # local rate uniform in density +- spread (mean exactly density, inside (0, 1)), constant over runs of _RUN
    n_runs = (n + _RUN - 1) // _RUN
    spread = 0.5 * min(density, 1.0 - density)
    rate = density + spread * (2.0 * torch.rand(n_runs, generator=gen, device=device) - 1.0)
    rate = rate.repeat_interleave(_RUN)[:n]
    mask = torch.rand(n, generator=gen, device=device) < rate
    # randn is never exactly 0 in practice, but "no zeros" is promised: move the rare zero away
    values = torch.randn(n, generator=gen, device=device, dtype=torch.float32).to(dtype)
    return values.masked_fill_(values == 0, 1.0).contiguous(), mask.contiguous()
