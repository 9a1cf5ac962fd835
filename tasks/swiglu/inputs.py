"""Inputs for swiglu: the concatenated gate|up projection output of a Llama-style MLP, x [T, 2F] bf16.

The gate half is what the up-projection GEMM produces for a trained model: roughly zero-mean with unit spread and a
heavier negative/positive tail (a few large pre-activations), so silu sees both its linear and its saturated
regions. The up half is unit-scale.
"""

import torch


def make_inputs(params: dict, seed: int, device) -> tuple:
    T, F = int(params["T"]), int(params["F"])
    dtype = getattr(torch, params.get("dtype", "bfloat16"))
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(T, 2 * F, generator=gen, device=device, dtype=torch.float32)
    # heavier tails on the gate half: 1 in 64 pre-activations is 4x larger
    tails = torch.rand(T, F, generator=gen, device=device) < 1.0 / 64
    x[:, :F] = torch.where(tails, 4.0 * x[:, :F], x[:, :F])
    return (x.to(dtype).contiguous(),)
