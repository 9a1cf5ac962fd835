"""Wrong: accumulates the bag in the table's dtype (fp16) instead of fp32.

Keeping the accumulator in weight.dtype halves its registers and looks harmless for "small" bags, but
every add rounds the running sum to 11 significant bits. Over a bag of tens of rows the sum drifts by
several fp16 ulps (0.5-3% on the interpreter workload), beyond the one-ulp tolerance.
"""
# expect: incorrect:mismatch

import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_bag_kernel(w_ptr, idx_ptr, off_ptr, out_ptr, dim, IS_MEAN: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < dim
    acc = tl.zeros([BLOCK_D], dtype=out_ptr.dtype.element_ty)  # the defect: fp16 running sum
    for j in range(start, end):
        row = tl.load(idx_ptr + j)
        acc += tl.load(w_ptr + row * dim + offs_d, mask=mask_d, other=0.0)
    if IS_MEAN:
        acc = acc / tl.maximum(end - start, 1).to(acc.dtype)
    tl.store(out_ptr + bag * dim + offs_d, acc, mask=mask_d)


def solution(weight, indices, offsets, mode):
    num_bags = offsets.numel() - 1
    dim = weight.shape[1]
    out = torch.empty((num_bags, dim), dtype=weight.dtype, device=weight.device)
    _embedding_bag_kernel[(num_bags,)](
        weight, indices, offsets, out, dim, IS_MEAN=mode == "mean", BLOCK_D=triton.next_power_of_2(dim)
    )
    return out
