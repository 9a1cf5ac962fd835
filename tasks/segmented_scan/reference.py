"""Reference for segmented_scan: h[t] = a[t] * h[t-1] + b[t], restarting at every sequence start.

The recurrence is sequential in time and plain PyTorch has no scan for it, so this is the loop a
PyTorch user writes: one step per time index up to the longest sequence, batched over all
sequences still running and over the channels. Sequences are sorted longest first so the ones still
running at step t are a prefix of the batch (no masking, no per-step copy to the host).
"""

import torch


def reference(a, b, offsets):
    num_seqs = offsets.numel() - 1
    starts = offsets[:-1].long()
    lengths = offsets[1:].long() - starts
    order = torch.argsort(lengths, descending=True, stable=True)
    starts = starts[order]
    lengths = lengths[order].tolist()

    out = torch.empty_like(b)
    h = torch.zeros(num_seqs, b.shape[1], dtype=b.dtype, device=b.device)
    active = num_seqs
    for t in range(lengths[0] if num_seqs else 0):
        while lengths[active - 1] <= t:  # sequences that ended drop off the end
            active -= 1
        rows = starts[:active] + t
        h = torch.addcmul(b.index_select(0, rows), a.index_select(0, rows), h[:active])
        out.index_copy_(0, rows, h)
    return out
