"""Top-k per row of a large logits matrix: a floor from group maxima, one filtering pass, a small sort.

values, indices = the k largest logits of each row, descending, equal values by ascending column.

* Keys: each logit maps to an int32 whose signed order is the float order (flip the low 31 bits of a
  negative); (key << 32) | (0x7FFFFFFF - column) is an int64 whose order is value-descending,
  column-ascending: the order of a stable descending sort, ties included.
* A floor for the k-th largest, fully parallel: the row is cut into groups of G columns and every
  (row, chunk) program writes its groups' maximum keys. At least k groups reach the k-th largest of
  those maxima, so at least k elements do: it is a threshold no higher than the k-th largest element.
  With G = 256 on a 128k vocabulary that is the 50th largest of 501 maxima, which few elements beat.
* One filtering pass: every (row, chunk) program keeps the elements at or above its row's threshold
  and appends their int64 keys to the row's candidate list (each survivor takes a slot with an atomic
  add on the row's count). A last program per row sorts the candidates (tl.topk over CAP keys) and
  writes the k winners in order.
* Rows whose candidates overflow CAP (many values tied at the threshold) are rare and still exact: a
  radix select over the whole row (tl.histogram, one byte of the key per pass) runs for those rows only,
  and skips every other row after reading its count.
* Traffic: the logits are read twice (group maxima, then the filter), plus B * n_groups * 4 bytes of
  maxima and a few hundred bytes of candidates per row. Every pass is spread over (row, chunk) tiles,
  so all SMs stream from the first microsecond whatever B is.
* Tiles of 2048 columns on 4 warps (16 a thread). On an H200 (2026-12-03, us): 212 / 511 / 188 on the
  three workloads, against 279 / 722 / 248 at 4096 and 357 / 920 / 336 at 8192 on 8 warps, and against
  1284 / 5381 / 1197 for the former expert, a radix select (byte histograms) over every row. A slot per
  survivor (an atomic each) instead of a run per tile ranked by a cumsum: 152 / 379 / 216 against
  212 / 510 / 241 in the same sweep (benchmarks/topk_designs.py, 23:00 UTC).

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-03-h200-late/profiles/ (the same expert code), summed up in that run's README.md, "Profiles".
- llama3-sample-b512: 20.2% of SOL, bound by HBM; expert 141.7 us, SOL 28.6 us.
  Profile (topk_rows__llama3-sample-b512.txt): `_filter_kernel` 70.4 us, 53% of the kernels' time, compute-bound
  (SM 81%, memory 46%), DRAM 1.90 TB/s (39%), 56 registers, occupancy 53% of 56% possible; `_group_max_kernel`
  34.3 us at 3.92 TB/s (82%); `_order_kernel` 17.5 us (13%) and `_threshold_kernel` 6.9 us (5%) at 19% and 20%
  occupancy; `_radix_rows_kernel` 3.7 us.
- gemma-b256-top64: 21.7% of SOL, bound by HBM; expert 131.3 us, SOL 28.5 us.
  Profile (topk_rows__gemma-b256-top64.txt): `_filter_kernel` 62.4 us, 51%, compute-bound (SM 79%, memory 45%),
  DRAM 2.14 TB/s (44%); `_group_max_kernel` 33.7 us at 3.98 TB/s (83%); `_threshold_kernel` 11.2 us and
  `_order_kernel` 10.7 us (9% each) at 12% and 11% occupancy; `_radix_rows_kernel` 3.3 us.
- qwen2-rl-b1024-fp32: 35.9% of SOL, bound by HBM; expert 377.6 us, SOL 135.4 us.
  Profile (topk_rows__qwen2-rl-b1024-fp32.txt): `_filter_kernel` 161.2 us, 43%, memory-bound, DRAM 3.88 TB/s (81%);
  `_group_max_kernel` 142.2 us, 38%, at 4.41 TB/s (92%); `_threshold_kernel` 31.8 us and `_order_kernel` 31.7 us
  (9% each) at 38% and 33% occupancy; `_radix_rows_kernel` 5.3 us.
Why, all three: the SOL counts one read of the logits. The design reads them twice, because the floor needs every
group's maximum before any element is kept, so 50% of this SOL is its ceiling. On bf16 the filtering pass is
compute-bound at under half of DRAM's peak; on fp32 both passes run at 81-92% of DRAM's peak. The per-row threshold
and ordering kernels run on one program a row at low occupancy (docs/suite.md, section "2026-12-03 23:00-23:38 UTC",
the table of workloads under 40%). A threshold by a top-K_PAD of the group maxima and an ordering over 256 slots
were 10% faster on the fp32 workload and 11-25% slower on the bf16 ones (docs/runs/2026-12-04-h200/README.md), so
the expert is unchanged.
"""

import functools

import torch
import triton
import triton.language as tl

CHUNK = 2048  # columns per (row, chunk) program: 16 a thread at 4 warps
NUM_WARPS = 4
GROUP = 256  # columns per group maximum
CAP = 1024  # candidate slots per row; a row with more takes the radix select
_MIN_I64 = tl.constexpr(-9223372036854775807 - 1)
_MIN_I32 = tl.constexpr(-2147483647 - 1)


@triton.jit
def _skey(x):
    """fp32 -> int32 whose signed order is the float order."""
    bits = x.to(tl.int32, bitcast=True)
    return bits ^ ((bits >> 31) & 0x7FFFFFFF)


@triton.jit
def _group_max_kernel(x_ptr, gmax_ptr, V, stride_row, n_groups_pad, CHUNK: tl.constexpr, G: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < V, other=0.0)
    key = tl.where(cols < V, _skey(x.to(tl.float32)), _MIN_I32)
    gmax = tl.max(tl.reshape(key, [CHUNK // G, G]), axis=1)
    groups = tl.program_id(1) * (CHUNK // G) + tl.arange(0, CHUNK // G)
    tl.store(gmax_ptr + row * n_groups_pad + groups, gmax, mask=groups < n_groups_pad)


@triton.jit
def _threshold_kernel(gmax_ptr, thresh_ptr, n_groups, K_SEL: tl.constexpr, NG_PAD: tl.constexpr):
    # the K_SEL-th largest group maximum of the row: sorted descending, picked by position
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, NG_PAD)
    gmax = tl.load(gmax_ptr + row * NG_PAD + offs, mask=offs < n_groups, other=_MIN_I32)
    ordered = tl.sort(gmax, descending=True)
    tl.store(thresh_ptr + row, tl.max(tl.where(offs == K_SEL - 1, ordered, _MIN_I32), axis=0))


@triton.jit
def _filter_kernel(x_ptr, thresh_ptr, count_ptr, cand_ptr, V, stride_row, CHUNK: tl.constexpr, CAP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
    mask = cols < V
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0, eviction_policy="evict_first")
    key = _skey(x.to(tl.float32))
    keep = mask & (key >= tl.load(thresh_ptr + row))
    if tl.max(keep.to(tl.int32), axis=0) > 0:
        # a slot per survivor from the row's counter: survivors are a few per tile, and ranking them with a cumsum
        # over the tile held the kernel at 115 registers (55-56 this way)
        slot = tl.atomic_add(count_ptr + row + tl.zeros_like(cols), 1, mask=keep, sem="relaxed")
        packed = (key.to(tl.int64) << 32) | (0x7FFFFFFF - cols).to(tl.int64)
        tl.store(cand_ptr + row * CAP + slot, packed, mask=keep & (slot < CAP))


@triton.jit
def _order_kernel(cand_ptr, count_ptr, val_ptr, idx_ptr, K_SEL: tl.constexpr, K_PAD: tl.constexpr, CAP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    n = tl.load(count_ptr + row)
    if n <= CAP:
        offs = tl.arange(0, CAP)
        packed = tl.load(cand_ptr + row * CAP + offs, mask=offs < n, other=_MIN_I64)
        best = tl.topk(packed, K_PAD)  # descending
        _store_winners(best, val_ptr, idx_ptr, row * K_SEL, K_SEL, K_PAD)


@triton.jit
def _store_winners(best, val_ptr, idx_ptr, out_row, K_SEL: tl.constexpr, K_PAD: tl.constexpr):
    """The first K_SEL packed keys of `best` (descending) as the output row's values and columns."""
    s = (best >> 32).to(tl.int32)
    value = (s ^ ((s >> 31) & 0x7FFFFFFF)).to(tl.float32, bitcast=True)
    j = tl.arange(0, K_PAD)
    tl.store(val_ptr + out_row + j, value.to(val_ptr.dtype.element_ty), mask=j < K_SEL)
    tl.store(idx_ptr + out_row + j, (0x7FFFFFFF - best.to(tl.int32)).to(tl.int64), mask=j < K_SEL)


@triton.jit
def _radix_key(x):
    """fp32 -> uint32 whose unsigned order is the float order."""
    bits = x.to(tl.uint32, bitcast=True)
    return bits ^ tl.where((bits >> 31) != 0, 0xFFFFFFFF, 0x80000000)


@triton.jit
def _radix_rows_kernel(
    x_ptr, val_ptr, idx_ptr, count_ptr, B, V, stride_row,
    K_SEL: tl.constexpr, K_PAD: tl.constexpr, N_DIGITS: tl.constexpr, BLOCK_V: tl.constexpr, CAP: tl.constexpr,
):  # fmt: skip
    # the exact fallback, a row at a time over the rows whose candidates overflowed
    offs = tl.arange(0, BLOCK_V)
    bins = tl.arange(0, 256)
    slot = tl.arange(0, K_PAD)
    for row in range(tl.program_id(0), B, tl.num_programs(0)):
        if tl.load(count_ptr + row) > CAP:
            row64 = tl.cast(row, tl.int64)
            row_ptr = x_ptr + row64 * stride_row
            prefix = tl.zeros([], dtype=tl.uint32)  # the bytes of the k-th largest key fixed so far
            k_rem = tl.full([], K_SEL, tl.int32)  # how many winners the remaining candidates must supply
            for dgt in tl.static_range(N_DIGITS):
                shift = 24 - 8 * dgt
                hist = tl.zeros([256], dtype=tl.int32)
                for off in range(0, V, BLOCK_V):
                    cols = off + offs
                    mask = cols < V
                    u = _radix_key(tl.load(row_ptr + cols, mask=mask, other=0.0).to(tl.float32))
                    if dgt > 0:
                        mask = mask & ((u >> (shift + 8)) == prefix)
                    hist += tl.histogram(((u >> shift) & 255).to(tl.int32), 256, mask=mask)
                at_or_above = tl.sum(hist, axis=0) - tl.cumsum(hist, axis=0) + hist
                d_star = tl.max(tl.where(at_or_above >= k_rem, bins, 0), axis=0)
                k_rem -= tl.sum(tl.where(bins > d_star, hist, 0), axis=0)
                prefix = (prefix << 8) | d_star.to(tl.uint32)
            thresh = prefix << (32 - 8 * N_DIGITS)
            # the winners' columns into the row's output indices: above the threshold in any order, then the
            # first k_rem equal to it in column order
            out_row = row64 * K_SEL
            n_gt = tl.zeros([], dtype=tl.int32)
            n_eq = tl.zeros([], dtype=tl.int32)
            for off in range(0, V, BLOCK_V):
                cols = off + offs
                mask = cols < V
                u = _radix_key(tl.load(row_ptr + cols, mask=mask, other=0.0).to(tl.float32))
                is_gt = mask & (u > thresh)
                is_eq = mask & (u == thresh)
                pos_gt = n_gt + tl.cumsum(is_gt.to(tl.int32), axis=0) - 1
                pos_eq = n_eq + tl.cumsum(is_eq.to(tl.int32), axis=0) - 1
                dst = tl.where(is_gt, pos_gt, K_SEL - k_rem + pos_eq)
                tl.store(idx_ptr + out_row + dst, cols.to(tl.int64), mask=is_gt | (is_eq & (pos_eq < k_rem)))
                n_gt += tl.sum(is_gt.to(tl.int32), axis=0)
                n_eq += tl.sum(is_eq.to(tl.int32), axis=0)
            tl.debug_barrier()  # the scattered indices are visible to the whole program
            idx = tl.load(idx_ptr + out_row + slot, mask=slot < K_SEL, other=0).to(tl.int32)
            x = tl.load(row_ptr + idx, mask=slot < K_SEL, other=0.0).to(tl.float32)
            packed = (_skey(x).to(tl.int64) << 32) | (0x7FFFFFFF - idx).to(tl.int64)
            best = tl.sort(tl.where(slot < K_SEL, packed, _MIN_I64), descending=True)
            tl.debug_barrier()  # every thread has read its index before any is overwritten
            _store_winners(best, val_ptr, idx_ptr, out_row, K_SEL, K_PAD)


@functools.cache
def _num_sms(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _group(V: int, k: int) -> int:
    """Columns per group: 256, or fewer so that at least k groups exist, or more so that at most 4096 do."""
    group = max(GROUP, triton.next_power_of_2(triton.cdiv(V, 4096)))
    while group > 1 and triton.cdiv(V, group) < k:
        group //= 2
    return group


def solution(logits: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    assert logits.ndim == 2 and logits.stride(1) == 1
    assert logits.dtype in (torch.bfloat16, torch.float32)
    B, V = logits.shape
    assert 1 <= k <= 64 and k <= V and V < 2**31
    device = logits.device
    values = torch.empty((B, k), dtype=logits.dtype, device=device)
    indices = torch.empty((B, k), dtype=torch.int64, device=device)
    if B == 0:
        return values, indices
    k_pad = max(16, triton.next_power_of_2(k))
    group = _group(V, k)
    chunk = max(CHUNK, group)
    n_groups = triton.cdiv(V, group)
    ng_pad = triton.next_power_of_2(max(n_groups, 2))
    n_chunks = triton.cdiv(V, chunk)
    counts = torch.zeros(B, dtype=torch.int32, device=device)
    gmax = torch.empty((B, ng_pad), dtype=torch.int32, device=device)
    thresh = torch.empty(B, dtype=torch.int32, device=device)
    cand = torch.empty((B, CAP), dtype=torch.int64, device=device)
    stride = logits.stride(0)
    _group_max_kernel[(B, n_chunks)](logits, gmax, V, stride, ng_pad, CHUNK=chunk, G=group, num_warps=NUM_WARPS)
    _threshold_kernel[(B,)](gmax, thresh, n_groups, K_SEL=k, NG_PAD=ng_pad, num_warps=4)
    _filter_kernel[(B, n_chunks)](logits, thresh, counts, cand, V, stride, CHUNK=chunk, CAP=CAP, num_warps=NUM_WARPS)
    _order_kernel[(B,)](cand, counts, values, indices, K_SEL=k, K_PAD=k_pad, CAP=CAP, num_warps=4)
    num_sms = _num_sms(device.index or 0) if logits.is_cuda else 2
    _radix_rows_kernel[(min(B, num_sms),)](
        logits, values, indices, counts, B, V, stride,
        K_SEL=k, K_PAD=k_pad, N_DIGITS=2 if logits.dtype == torch.bfloat16 else 4, BLOCK_V=4096, CAP=CAP,
        num_warps=4,
    )  # fmt: skip
    return values, indices
