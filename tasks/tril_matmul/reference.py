"""Reference for tril_matmul: C = tril(A) @ B as a PyTorch user writes it."""

import torch


def reference(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    return torch.tril(A) @ B
