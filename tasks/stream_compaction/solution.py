import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(values, mask):
    """Stream compaction (masked select), order preserved.

    values: [N] float32 or bfloat16, contiguous; mask: [N] bool, contiguous.
    Return (selected, count):
      selected: 1-D tensor of values.dtype with values[i] for every i where mask[i], in increasing i;
      count: 0-d int64 tensor, the number of true entries (= selected.numel()).
    The length depends on the data: allocate N elements, have the kernel write the count to device
    memory, read it with .item() and return selected as a view of the first count elements.
    Do not modify the inputs.
    """
    raise NotImplementedError
