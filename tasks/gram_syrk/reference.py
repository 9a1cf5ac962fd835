"""Reference for gram_syrk: C = A^T A, computed the way a PyTorch user would, in fp32."""

import torch


def reference(A: torch.Tensor) -> torch.Tensor:
    # Upcast first: fp16/bf16 products are exact in fp32, and the sum over M is accumulated in fp32.
    Af = A.float()
    return Af.T @ Af
