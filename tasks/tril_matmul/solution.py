import torch
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Return C = tril(A) @ B: C[i, :] = sum over k <= i of A[i, k] * B[k, :].

    A: [N, N], B: [N, K], both contiguous and of the same dtype (float16 or bfloat16). Only the lower triangle of
    A (diagonal included) takes part; its strict upper triangle holds unrelated values. Return a new contiguous
    [N, K] tensor of A's dtype on A's device, accumulated in float32. Do not modify A or B.
    """
    raise NotImplementedError
