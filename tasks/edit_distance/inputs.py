"""Inputs for edit_distance: B pairs of token sequences, padded, with their lengths.

Pairs are related, as in scoring a transcript or a translation against its reference: b is a copy
of a with about 8% of the tokens substituted and 6% deleted, and for half of the pairs the roles are
swapped (so the longer sequence is on either side). Lengths vary per pair (from half the padded
length up to all of it); padding positions hold random tokens that must not influence the result.
"""

import torch


def _edit(a: torch.Tensor, a_len: torch.Tensor, vocab: int, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    batch, length = a.shape
    device = a.device
    pos = torch.arange(length, device=device).expand(batch, length)
    sub = torch.rand(batch, length, generator=g, device=device) < 0.08
    b = torch.where(sub, torch.randint(0, vocab, (batch, length), generator=g, device=device, dtype=a.dtype), a)
    keep = (torch.rand(batch, length, generator=g, device=device) >= 0.06) & (pos < a_len[:, None])
    # stable compaction of the kept tokens to the front of each row
    order = torch.sort((~keep).to(torch.int8), dim=1, stable=True).indices
    b = torch.gather(b, 1, order)
    b_len = keep.sum(dim=1)
    pad = torch.randint(0, vocab, (batch, length), generator=g, device=device, dtype=a.dtype)
    return torch.where(pos < b_len[:, None], b, pad), b_len


def make_inputs(params: dict, seed: int, device) -> tuple:
    batch, length, vocab = int(params["batch"]), int(params["length"]), int(params["vocab"])
    g = torch.Generator(device=device).manual_seed(seed)
    a = torch.randint(0, vocab, (batch, length), generator=g, device=device, dtype=torch.int32)
    a_len = torch.randint(length // 2, length + 1, (batch,), generator=g, device=device)
    b, b_len = _edit(a, a_len, vocab, g)
    swap = torch.rand(batch, generator=g, device=device) < 0.5
    a, b = torch.where(swap[:, None], b, a), torch.where(swap[:, None], a, b)
    a_len, b_len = torch.where(swap, b_len, a_len), torch.where(swap, a_len, b_len)
    return tuple(t.contiguous() for t in (a, a_len, b, b_len))
