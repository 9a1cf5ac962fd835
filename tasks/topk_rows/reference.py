"""Top-k values and indices of each row, as a PyTorch user writes it when ties must be deterministic.

A stable descending sort keeps equal values in index order, so among equal values the smaller index
comes first; torch.topk does not promise which of several equal values it returns.
"""

import torch


def reference(logits: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    values, indices = torch.sort(logits, dim=1, descending=True, stable=True)
    return values[:, :k].contiguous(), indices[:, :k].contiguous()
