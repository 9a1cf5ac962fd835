"""EmbeddingBag (sum / mean) as one gather-reduce kernel: a program owns a bag and a block of dims.

out[b, :] = sum_{j in bag b} weight[indices[j], :]   (divided by the bag length for mean)

The problem is a gather: every lookup pulls one row (128-512 bytes) from a table of 1-2.6 GB at a
random address, so what matters is how many row reads are in flight, and that nothing else moves.
Bytes: the looked-up rows, the indices (8 bytes / lookup), the offsets and the pooled output; e.g.
3.3M lookups of 512-byte rows move 1.7 GB.

Design:
- Owner per bag (L1.1): program (b, d-block) reads offsets[b], offsets[b+1] and reduces exactly that
  bag's rows: no atomics, no [nnz, dim] intermediate, each output element written once.
- fp32 accumulation, one rounding (L1.2): fp16 rows are widened on load, summed in fp32, and the mean
  scale 1 / max(len, 1) is applied once before the single cast; empty bags give 0 in both modes.
- Wide 2-D gathers (L2.1): a chunk of IDX_BLOCK indices is loaded as one vector, then the IDX_BLOCK
  rows are gathered as one [IDX_BLOCK, BLOCK_D] tile: IDX_BLOCK independent row reads in flight per
  program, each row read as contiguous 16-byte vectors. BLOCK_D covers the whole row (dim <= 256).
- The accumulator is the 2-D tile itself (L3.1): acc += rows, one cross-lane reduction per bag at the
  end instead of one per chunk. The tile and warps by the row's element size, measured on an H200
  (benchmarks/embedding_bag_designs.py, 2026-12-03 18:22 UTC): 2-byte rows on ONE warp with 8 rows a
  chunk at dim <= 128, 4 at 256 (torchrec-fp16-dim64-sum 391.8 -> 122.8 us, fp16-dim256-mean 373.5 ->
  203.3 against 32 / 16 rows on 4 warps); fp32 rows on 4 warps with 8 rows a chunk (dlrm-criteo-fp32-sum
  434.3 -> 376.7; one warp there: 410.9). On one warp the per-bag tl.sum is shuffles within the warp, no
  shared memory and no barrier, and small programs keep many bags in flight per SM: bags are short (20
  lookups at dim 64), so the epilogue is paid often. Why fp32 rows prefer 4 warps is not established.
- The next chunk's indices are loaded before the current rows are gathered (L3.2), so the index
  load latency is hidden behind the row gathers. Rows keep the default cache policy: popular rows are
  looked up many times per batch and stay in L2.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_bag_kernel(
    w_ptr,
    idx_ptr,
    off_ptr,
    out_ptr,
    dim,
    stride_w,
    stride_o,
    IS_MEAN: tl.constexpr,
    BLOCK_D: tl.constexpr,
    IDX_BLOCK: tl.constexpr,
):
    bag = tl.program_id(0)
    pid_d = tl.program_id(1)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)

    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < dim
    lanes = tl.arange(0, IDX_BLOCK)

    acc = tl.zeros([IDX_BLOCK, BLOCK_D], dtype=tl.float32)
    # indices of the first chunk (8 bytes / lookup, read once)
    j = start + lanes
    idx = tl.load(idx_ptr + j, mask=j < end, other=0, eviction_policy="evict_first")
    for chunk in range(start, end, IDX_BLOCK):
        # prefetch the next chunk's indices before gathering this chunk's rows
        j_next = chunk + IDX_BLOCK + lanes
        idx_next = tl.load(idx_ptr + j_next, mask=j_next < end, other=0, eviction_policy="evict_first")

        valid = (chunk + lanes) < end
        # IDX_BLOCK rows in flight, each a contiguous run of BLOCK_D elements: the only big traffic
        rows = tl.load(
            w_ptr + idx[:, None] * stride_w + offs_d[None, :],
            mask=valid[:, None] & mask_d[None, :],
            other=0.0,
        )
        acc += rows.to(tl.float32)
        idx = idx_next

    total = tl.sum(acc, axis=0)
    if IS_MEAN:
        # an empty bag has total 0: divide by 1, not by 0
        total = total / tl.maximum(end - start, 1).to(tl.float32)
    # the one write of the output, rounded once
    tl.store(out_ptr + bag.to(tl.int64) * stride_o + offs_d, total.to(out_ptr.dtype.element_ty), mask=mask_d)


def _config(dim: int, itemsize: int):
    """(BLOCK_D, IDX_BLOCK, num_warps) by the row's width and element size (measured, see L3.1 above)."""
    block_d = min(triton.next_power_of_2(dim), 256)
    if itemsize >= 4:
        return block_d, 8, 4  # fp32 rows: 8 rows a chunk over 4 warps, 8 accumulator elements a thread at dim 128
    # 2-byte rows: one warp, 8 rows a chunk up to dim 128, 4 at 256 (16-32 accumulator elements a thread)
    return block_d, max(4, min(8, 1024 // block_d)), 1


def solution(weight, indices, offsets, mode):
    assert weight.dim() == 2 and weight.stride(1) == 1, "rows must be contiguous"
    assert indices.dim() == 1 and offsets.dim() == 1 and offsets.numel() >= 1
    assert mode in ("sum", "mean")
    num_bags = offsets.numel() - 1
    dim = weight.shape[1]
    out = torch.empty((num_bags, dim), dtype=weight.dtype, device=weight.device)
    if num_bags == 0:
        return out

    block_d, idx_block, num_warps = _config(dim, weight.element_size())
    grid = (num_bags, triton.cdiv(dim, block_d))
    _embedding_bag_kernel[grid](
        weight,
        indices,
        offsets,
        out,
        dim,
        weight.stride(0),
        out.stride(0),
        IS_MEAN=mode == "mean",
        BLOCK_D=block_d,
        IDX_BLOCK=idx_block,
        num_warps=num_warps,
    )
    return out
