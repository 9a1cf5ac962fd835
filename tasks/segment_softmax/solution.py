import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(scores, offsets):
    """Softmax over ragged segments (graph attention normalisation per destination node).

    scores: [E, H] float32, contiguous (edge e, head h); offsets: [num_nodes + 1] int64, non-decreasing,
    offsets[0] = 0, offsets[-1] = E: node i's incoming edges are rows offsets[i] .. offsets[i+1]-1 (a node may
    have none). Return a new [E, H] float32 tensor out with, for every node i and head h,
      out[e, h] = exp(scores[e, h] - m) / sum_{e' in node i} exp(scores[e', h] - m),  m = max over node i's edges.
    Do not modify the inputs.
    """
    raise NotImplementedError
