"""Inputs for w4a16_gemm: fp16 activations X [M, K] and a 4-bit weight W [K, N] quantised symmetrically per group
of 128 input rows (GPTQ/AWQ-style group size), packed two per byte along N.

- qweight [K, N // 2] uint8: byte (k, j) holds q[k, 2j] in its low nibble and q[k, 2j + 1] in its high nibble,
  q in 0..15 with an implicit zero point of 8 (w = (q - 8) * scale);
- scales [K // 128, N] fp16: one scale per group of 128 rows of K and per output column; spread log-normally
  around 1 / (4.6 * sqrt(K)) so that Y = X @ W has O(1) entries whatever K is.
"""

import math

import torch

GROUP_SIZE = 128


def make_inputs(params: dict, seed: int, device) -> tuple:
    M, K, N = int(params["M"]), int(params["K"]), int(params["N"])
    g = torch.Generator(device=device).manual_seed(seed)
    X = torch.randn(M, K, generator=g, device=device).to(torch.float16)
    q = torch.randint(0, 16, (K, N), generator=g, device=device, dtype=torch.uint8)
    qweight = (q[:, 0::2] | (q[:, 1::2] << 4)).contiguous()
    base = 1.0 / (4.6 * math.sqrt(K))
    scales = (base * torch.exp(0.3 * torch.randn(K // GROUP_SIZE, N, generator=g, device=device))).to(torch.float16)
    return (X, qweight, scales)
