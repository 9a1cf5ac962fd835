"""Reference for segment_softmax, written as PyTorch Geometric's `softmax(src, ptr=ptr)` does it without
torch_scatter: a CSR segment max, exp of the shifted scores, a CSR segment sum, divide."""

import torch


def reference(scores, offsets):
    counts = offsets[1:] - offsets[:-1]
    num_edges = scores.shape[0]
    seg_max = torch.segment_reduce(scores, "max", offsets=offsets, axis=0)
    e = (scores - seg_max.repeat_interleave(counts, dim=0, output_size=num_edges)).exp()
    seg_sum = torch.segment_reduce(e, "sum", offsets=offsets, axis=0)
    return e / seg_sum.repeat_interleave(counts, dim=0, output_size=num_edges)
