"""Reference for swiglu: out = silu(gate) * up for gate, up = the two halves of x, in fp32, rounded once."""

import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    gate, up = x.chunk(2, dim=-1)
    return (F.silu(gate.float()) * up.float()).to(x.dtype)
