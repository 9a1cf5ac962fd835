"""Inputs for cross_entropy: LM-head logits [rows, V] and next-token targets [rows].

The logits imitate a trained language model's output: a per-row offset (logits are not
zero-mean), Gaussian spread over the vocabulary, and on about half the rows a confident
prediction where the target's logit stands well above the rest (small loss); on the other
rows the target is an ordinary token (loss near log(V)). About one row in sixteen, and
always the last row when there are at least two, is padding with target -100
(ignore_index), whose loss must be exactly 0.
"""

import torch

IGNORE_INDEX = -100


def make_inputs(params: dict, seed: int, device) -> tuple:
    rows = int(params["rows"])
    vocab = int(params["vocab"])
    dtype = getattr(torch, params.get("dtype", "bfloat16"))
    ignore_frac = float(params.get("ignore_frac", 0.0625))

    g = torch.Generator(device=device).manual_seed(seed)
    logits = torch.randn(rows, vocab, generator=g, device=device, dtype=torch.float32)
    logits.mul_(2.5).add_(2.0 * torch.randn(rows, 1, generator=g, device=device))

    targets = torch.randint(0, vocab, (rows,), generator=g, device=device, dtype=torch.int64)
    confident = torch.rand(rows, generator=g, device=device) < 0.5
    boost = 6.0 + 10.0 * torch.rand(rows, generator=g, device=device)
    row_idx = torch.arange(rows, device=device)
    logits[row_idx, targets] += torch.where(confident, boost, 0.0)

    ignored = torch.rand(rows, generator=g, device=device) < ignore_frac
    if rows >= 2:
        ignored[-1] = True
    targets[ignored] = IGNORE_INDEX
    return logits.to(dtype).contiguous(), targets.contiguous()
