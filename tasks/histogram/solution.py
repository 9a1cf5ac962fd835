import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(x, bins):
    """Histogram of integer values.

    x: [N] uint8 or int32, contiguous, every value in [0, bins); bins: Python int (256 to 65536 in the
    workloads, not always a power of two).
    Return a new [bins] int64 tensor: counts[b] = number of i with x[i] == b (torch.bincount semantics).
    Do not modify x.
    """
    raise NotImplementedError
