"""Wrong: gathers the rows in Triton into an [nnz, dim] buffer, then pools them with index_add_.

The gather kernel is real (and also writes each lookup's bag id), but the reduction -- half of the
task -- runs as aten.index_add in PyTorch, and the [nnz, dim] intermediate moves every row twice more.
The runtime guard rejects the index_add.
"""
# expect: runtime:forbidden-op

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(w_ptr, idx_ptr, off_ptr, rows_ptr, bag_ptr, dim, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < dim
    for j in range(start, end):
        row = tl.load(idx_ptr + j)
        vals = tl.load(w_ptr + row * dim + offs_d, mask=mask_d, other=0.0)
        tl.store(rows_ptr + j * dim + offs_d, vals.to(tl.float32), mask=mask_d)
        tl.store(bag_ptr + j, bag.to(tl.int64))


def solution(weight, indices, offsets, mode):
    num_bags = offsets.numel() - 1
    nnz = indices.numel()
    dim = weight.shape[1]
    rows = torch.empty((nnz, dim), dtype=torch.float32, device=weight.device)
    bag_of = torch.empty(nnz, dtype=torch.int64, device=weight.device)
    _gather_kernel[(num_bags,)](weight, indices, offsets, rows, bag_of, dim, BLOCK_D=triton.next_power_of_2(dim))
    out = torch.zeros((num_bags, dim), dtype=torch.float32, device=weight.device)
    out.index_add_(0, bag_of, rows)
    return out.to(weight.dtype)
