import torch
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(X: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """Return Y = X @ W with W the dequantised 4-bit weight, W[k, n] = (q[k, n] - 8) * scales[k // 128, n].

    X: [M, K] float16 activations. qweight: [K, N // 2] uint8, byte (k, j) = q[k, 2j] | q[k, 2j + 1] << 4
    (q in 0..15, symmetric with zero point 8, no zeros tensor). scales: [K // 128, N] float16 (group size 128
    along K). K is a multiple of 128 and N of 2; all inputs contiguous. Return a new contiguous [M, N] float16
    tensor on X's device, accumulated in float32. Do not modify the inputs.
    """
    raise NotImplementedError
