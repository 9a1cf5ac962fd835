"""Wrong: packs the rows into a zero-padded [E, capacity, K] batch with a Triton kernel, then runs a batched matmul.

The "capacity" formulation of MoE (as in GShard-style dispatch): scatter every expert's rows into a dense padded
buffer, one bmm, and gather back. The scatter and gather are Triton, but the products are torch.bmm, fetched by
name so that no static rule sees it; the runtime guard sees aten.bmm run inside solution(). It also reads the
offsets on the host and wastes the padding's work under skew.
"""
# expect: static:dynamic-attribute
# expect-runtime: runtime:forbidden-op  (what the runtime guard says with the static rules out of the way)

import torch
import triton
import triton.language as tl


@triton.jit
def _pack_kernel(src_ptr, dst_ptr, offsets_ptr, cap, D, stride_src, stride_dst, BLOCK_D: tl.constexpr):
    # Program (expert, slot): copies row offsets[e] + slot of src into dst[e, slot] (or back when unpacking).
    e = tl.program_id(0)
    slot = tl.program_id(1)
    start = tl.load(offsets_ptr + e)
    end = tl.load(offsets_ptr + e + 1)
    offs = tl.arange(0, BLOCK_D)
    for d in range(0, D, BLOCK_D):
        cols = d + offs
        mask = (cols < D) & (start + slot < end)
        v = tl.load(src_ptr + (start + slot).to(tl.int64) * stride_src + cols, mask=mask, other=0.0)
        tl.store(dst_ptr + (e * cap + slot).to(tl.int64) * stride_dst + cols, v, mask=cols < D)


@triton.jit
def _unpack_kernel(src_ptr, dst_ptr, offsets_ptr, cap, D, stride_src, stride_dst, BLOCK_D: tl.constexpr):
    e = tl.program_id(0)
    slot = tl.program_id(1)
    start = tl.load(offsets_ptr + e)
    end = tl.load(offsets_ptr + e + 1)
    offs = tl.arange(0, BLOCK_D)
    for d in range(0, D, BLOCK_D):
        cols = d + offs
        mask = (cols < D) & (start + slot < end)
        v = tl.load(src_ptr + (e * cap + slot).to(tl.int64) * stride_src + cols, mask=mask, other=0.0)
        tl.store(dst_ptr + (start + slot).to(tl.int64) * stride_dst + cols, v, mask=mask)


def solution(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, K = x.shape
    E, _, N = w.shape
    bounds = offsets.tolist()
    cap = max(max(b - a for a, b in zip(bounds[:-1], bounds[1:])), 1)
    packed = torch.empty((E, cap, K), dtype=x.dtype, device=x.device)
    _pack_kernel[(E, cap)](x, packed, offsets, cap, K, x.stride(0), K, BLOCK_D=128)
    batched = getattr(torch, "b" + "mm")(packed, w)
    y = torch.empty((T, N), dtype=x.dtype, device=x.device)
    _unpack_kernel[(E, cap)](batched, y, offsets, cap, N, N, y.stride(0), BLOCK_D=128)
    return y
