"""Viterbi decoding of a linear-chain CRF / HMM, as a PyTorch user writes it.

The reference loops over the T steps in Python, each step batched over the chains and the states
(a [B, S, S] max-plus step), then loops back over time to follow the backpointers. Ties go to the lowest
state index (torch.max over a dim returns the first maximal index).
"""

import torch


def reference(emissions: torch.Tensor, transitions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    batch, steps, states = emissions.shape
    score = emissions[:, 0]
    backptr = torch.empty((steps, batch, states), dtype=torch.int64, device=emissions.device)
    for t in range(1, steps):
        # score[b, i] + transitions[i, j], best over the previous state i
        best, backptr[t] = (score.unsqueeze(2) + transitions).max(dim=1)
        score = best + emissions[:, t]
    best_score, last = score.max(dim=1)
    path = torch.empty((batch, steps), dtype=torch.int64, device=emissions.device)
    path[:, steps - 1] = last
    for t in range(steps - 1, 0, -1):
        last = backptr[t].gather(1, last.unsqueeze(1)).squeeze(1)
        path[:, t - 1] = last
    return path, best_score
