import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    """Depthwise causal 1-D convolution (Mamba's short conv), channel-last, optional SiLU.

    x: [B, T, C] bfloat16, contiguous (channels innermost); weight: [C, W] bfloat16; bias: [C] bfloat16;
    silu: Python bool.
    y[b, t, c] = bias[c] + sum_{j < W} weight[c, j] * x[b, t - (W - 1) + j, c], with x = 0 before t = 0 of each
    sequence (no state crosses from one batch element to the next); then y = silu(y) if silu.
    Computed in float32, rounded to bfloat16 once. Return a new [B, T, C] bfloat16 tensor; do not modify inputs.
    """
    raise NotImplementedError
