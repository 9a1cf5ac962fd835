"""Wrong: the mean divides by the bag length without guarding empty bags.

Correct fp32 gather-reduce, but `total / (end - start)` is 0 / 0 = NaN for an empty bag, where
PyTorch's EmbeddingBag (and the contract) returns a zero row. Workloads whose bags all have at least
one lookup pass; the interpreter workload has an empty bag.
"""
# expect: incorrect:nonfinite

import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_bag_kernel(
    w_ptr, idx_ptr, off_ptr, out_ptr, dim, IS_MEAN: tl.constexpr, BLOCK_D: tl.constexpr, IDX_BLOCK: tl.constexpr
):
    bag = tl.program_id(0)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < dim
    lanes = tl.arange(0, IDX_BLOCK)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for chunk in range(start, end, IDX_BLOCK):
        valid = chunk + lanes < end
        idx = tl.load(idx_ptr + chunk + lanes, mask=valid, other=0)
        rows = tl.load(w_ptr + idx[:, None] * dim + offs_d[None, :], mask=valid[:, None] & mask_d[None, :], other=0.0)
        acc += tl.sum(rows.to(tl.float32), axis=0)
    if IS_MEAN:
        acc = acc / (end - start).to(tl.float32)  # the defect: 0 / 0 for an empty bag
    tl.store(out_ptr + bag * dim + offs_d, acc.to(out_ptr.dtype.element_ty), mask=mask_d)


def solution(weight, indices, offsets, mode):
    num_bags = offsets.numel() - 1
    dim = weight.shape[1]
    out = torch.empty((num_bags, dim), dtype=weight.dtype, device=weight.device)
    _embedding_bag_kernel[(num_bags,)](
        weight,
        indices,
        offsets,
        out,
        dim,
        IS_MEAN=mode == "mean",
        BLOCK_D=triton.next_power_of_2(dim),
        IDX_BLOCK=16,
    )
    return out
