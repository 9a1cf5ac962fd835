import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(a, b, offsets):
    """Segmented linear recurrence over packed variable-length sequences.

    a, b: [T, D] float32, contiguous (a is a decay in (0, 1), b the drive).
    offsets: [num_seqs + 1] int32 or int64, offsets[0] = 0, offsets[-1] = T, non-decreasing;
    sequence i occupies rows offsets[i] .. offsets[i+1]-1.
    Return a new [T, D] float32 tensor h with, for every row t of sequence i,
      h[t] = a[t] * h[t-1] + b[t]   and   h[offsets[i]] = b[offsets[i]]   (the state restarts at 0).
    Do not modify the inputs.
    """
    raise NotImplementedError
