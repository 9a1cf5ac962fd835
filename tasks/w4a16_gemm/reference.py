"""Reference for w4a16_gemm: unpack the int4 weight, dequantise it to fp16, then an fp16 GEMM (fp32 accumulation),
the way a PyTorch user runs a GPTQ/AWQ-style checkpoint in plain PyTorch."""

import torch

GROUP_SIZE = 128


def reference(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    K = qweight.shape[0]
    q = torch.stack([qweight & 0xF, qweight >> 4], dim=-1).reshape(K, -1)  # [K, N], column 2j low, 2j+1 high
    W = ((q.float() - 8.0) * scales.float().repeat_interleave(GROUP_SIZE, dim=0)).to(torch.float16)
    return X @ W
