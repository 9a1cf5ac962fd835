"""Wrong: counts the survivors in Triton, then gathers them with boolean indexing outside the kernel.

The count kernel is real, and `values[mask]` is not any of the named forbidden functions, so the
source passes the static checks. But boolean indexing runs aten.index (a nonzero plus a gather) in
PyTorch: the compaction itself never happens in Triton, and the runtime guard rejects it.
"""
# expect: static:dead-launch
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(mask_ptr, count_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    keep = tl.load(mask_ptr + offs, mask=offs < n, other=0) != 0
    tl.atomic_add(count_ptr, tl.sum(keep.to(tl.int64), axis=0))


def solution(values, mask):
    n = values.numel()
    count = torch.zeros((), dtype=torch.int64, device=values.device)
    BLOCK = 4096
    _count_kernel[(triton.cdiv(n, BLOCK),)](mask.view(torch.uint8), count, n, BLOCK=BLOCK)
    return values[mask], count
