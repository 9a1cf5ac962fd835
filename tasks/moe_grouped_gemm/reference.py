"""Reference for moe_grouped_gemm: one matmul per expert over its slice of the sorted rows.

This is what a PyTorch MoE layer does without a grouped-GEMM kernel (the Hugging Face Mixtral / Qwen-MoE expert
loop): read the offsets on the host, then launch one bf16 GEMM (fp32 accumulation) per non-empty expert.
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
