"""Reference for rmsnorm_residual, written the way a PyTorch model does it (the add, then the norm, as in vLLM)."""

import torch


def reference(x, residual, weight, eps):
    # the residual stream is stored in bf16: the sum is rounded before the norm sees it
    h = x + residual
    hf = h.float()
    variance = hf.pow(2).mean(dim=-1, keepdim=True)
    y = hf * torch.rsqrt(variance + eps) * weight.float()
    return y.to(x.dtype), h
