"""Batched Levenshtein distance, as a PyTorch user writes it.

The dynamic program D[i][j] = min(D[i-1][j] + 1, D[i][j-1] + 1, D[i-1][j-1] + (a[i-1] != b[j-1])),
with D[i][0] = i and D[0][j] = j, evaluated in PyTorch. Each pair's answer is D[a_len][b_len].
"""

import torch


def reference(a: torch.Tensor, a_len: torch.Tensor, b: torch.Tensor, b_len: torch.Tensor) -> torch.Tensor:
    batch, len_a = a.shape
    len_b = b.shape[1]
    j = torch.arange(len_b + 1, dtype=torch.int32, device=a.device)
    row = j.expand(batch, len_b + 1)  # D[0][j] = j
    col = b_len.unsqueeze(1)
    at_row = torch.empty((batch, len_a + 1), dtype=torch.int32, device=a.device)
    at_row[:, 0] = row.gather(1, col).squeeze(1)
    e = torch.empty((batch, len_b + 1), dtype=torch.int32, device=a.device)
    for i in range(1, len_a + 1):
        cost = (a[:, i - 1 : i] != b).to(torch.int32)
        torch.minimum(row[:, 1:] + 1, row[:, :-1] + cost, out=e[:, 1:])
        e[:, 0] = i
        row = torch.cummin(e - j, dim=1).values + j
        at_row[:, i] = row.gather(1, col).squeeze(1)
    return at_row.gather(1, a_len.unsqueeze(1)).squeeze(1)
