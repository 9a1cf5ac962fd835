"""Ladder rung 1 (plain + L1.1, L1.2): each bag gathered and reduced by the program that owns it.

out[b, :] = sum (or mean) of weight[indices[p], :] for p in offsets[b] .. offsets[b+1]; an empty bag is zero.

Over plain.py:
- L1.1: one program per bag reads offsets[b], offsets[b+1] and walks exactly those indices, gathering each row
  from the table and reducing it in registers; the [nnz, dim] buffer and the second kernel are gone, and each
  output element is stored once, with no atomics.
- L1.2: rows are widened to fp32 on load into an fp32 accumulator; mean divides the total once by
  max(len, 1) (an empty bag gives 0), and the result is cast to the output dtype once at the store.

Expected on an H200: about a third of plain's traffic (the rows are read once, nothing is written but the
output) and one launch. Its inner loop still loads one index and one row per step, so each lookup waits out the
full memory latency (L2.1), and row addresses come from the int64 index as loaded.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bag_kernel(w_ptr, idx_ptr, off_ptr, out_ptr, dim, stride_w, stride_o, MEAN: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    offs_d = tl.arange(0, BLOCK_D)
    mask = offs_d < dim
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for p in range(start, end):
        row = tl.load(idx_ptr + p)
        acc += tl.load(w_ptr + row * stride_w + offs_d, mask=mask, other=0.0).to(tl.float32)
    if MEAN:
        acc = acc / tl.maximum(end - start, 1).to(tl.float32)
    tl.store(out_ptr + bag * stride_o + offs_d, acc.to(out_ptr.dtype.element_ty), mask=mask)


def solution(weight, indices, offsets, mode):
    assert mode in ("sum", "mean"), "mode must be 'sum' or 'mean'"
    assert weight.dim() == 2 and weight.stride(1) == 1
    num_bags = offsets.numel() - 1
    dim = weight.shape[1]
    out = torch.empty((num_bags, dim), dtype=weight.dtype, device=weight.device)
    if num_bags == 0 or dim == 0:
        return out
    _bag_kernel[(num_bags,)](
        weight, indices, offsets, out, dim, weight.stride(0), out.stride(0),
        MEAN=mode == "mean", BLOCK_D=triton.next_power_of_2(dim),
    )  # fmt: skip
    return out
