"""Reference for stream_compaction: boolean indexing, as a PyTorch user writes a masked select."""

import torch


def reference(values, mask):
    selected = values[mask]
    count = mask.sum()  # 0-d int64
    return selected, count.to(torch.int64)
