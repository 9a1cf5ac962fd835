import torch
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """Grouped GEMM of an MoE expert layer: Y[rows of e] = X[rows of e] @ W[e] for every expert e.

    x:       [T, K] bfloat16, contiguous; the routed rows, sorted (grouped) by expert.
    w:       [E, K, N] bfloat16, contiguous; expert e's (fused gate/up) projection is w[e], [K, N].
    offsets: [E + 1] int32 on x's device; expert e owns rows offsets[e] .. offsets[e+1]-1
             (offsets[0] = 0, offsets[E] = T, non-decreasing; an expert may own no rows).

    Return y: a new [T, N] bfloat16 tensor, products accumulated in float32 and rounded to bfloat16 once.
    Do not modify the inputs.
    """
    raise NotImplementedError
