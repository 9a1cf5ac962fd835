import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(weight, indices, offsets, mode):
    """Pooled embedding lookups (EmbeddingBag).

    weight: [num_rows, dim] float16 or float32, contiguous; indices: [nnz] int64 row ids;
    offsets: [num_bags + 1] int64, bag b is indices[offsets[b] : offsets[b + 1]] (may be empty);
    mode: "sum" or "mean".
    Return a new [num_bags, dim] tensor of weight.dtype: out[b] = sum (or mean) of weight[indices[j]] over
    the bag, accumulated in fp32 and rounded once; an empty bag gives zeros in both modes.
    Do not modify the inputs.
    """
    raise NotImplementedError
