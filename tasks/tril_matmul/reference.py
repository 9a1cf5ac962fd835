"""Reference for tril_matmul: C = tril(A) @ B as a PyTorch user writes it (a dense product on the masked copy)."""

import torch


def reference(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    return torch.tril(A) @ B
