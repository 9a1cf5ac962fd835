"""Reference for moe_grouped_gemm: one matmul per expert over its slice of the sorted rows.

This is the expert loop of a PyTorch MoE layer (Hugging Face Mixtral / Qwen-MoE style): one bf16 GEMM (fp32
accumulation) per non-empty expert, over the rows its offsets give.
"""

import torch


def reference(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    y = torch.empty(x.shape[0], w.shape[2], dtype=x.dtype, device=x.device)
    bounds = offsets.tolist()
    for e in range(w.shape[0]):
        start, end = bounds[e], bounds[e + 1]
        if end > start:
            y[start:end] = x[start:end] @ w[e]
    return y
