"""Segment softmax (GAT attention normalisation): short segments vectorised, long ones streamed, hubs split.

out[e, h] = exp(s[e, h] - m_i[h]) / sum_{e in node i} exp(s[e, h] - m_i[h]),  for the edges e of node i.

The problem is memory-bound: every score is read and every output written once (8 bytes per (edge, head),
~1 flop of exp per element), so the design is about reading each score once, touching nothing else, and
keeping all lanes of the GPU busy despite degrees that range from 0 to tens of thousands.

Design:
- A segment is contiguous: node i's scores are the deg_i * H floats starting at offsets[i] * H, so heads are
  the fast (contiguous) axis of every tile and one node's data is one linear range.
- Ownership: a program owns a tile of NODES consecutive nodes. All its segments of degree <= MAXD (the bulk
  of the graph) are handled together as one [NODES, MAXD, BLOCK_H] register tile: one masked load, a max and a
  sum over axis 1 per (node, head), one store -- each score read once, 8 bytes per element in all. MAXD is
  the next power of two of the mean degree (capped), so the tile is sized for the typical node, not the hub.
- Skew, first tier: the tile's segments longer than MAXD but at most HUB edges are found in registers (no
  sort, no compaction pass) and streamed one after another by the same program in [BLOCK_E, BLOCK_H] tiles:
  an online max/sum pass (the running sum rescaled by exp2(m_old - m_new) whenever the max grows), then a
  normalising pass. The first tile stays in registers between the two passes, so a segment of <= BLOCK_E
  edges is read once; longer ones re-read their tail from L1/L2, not HBM.
- Skew, second tier: a hub (more than HUB edges; ogbn-arxiv's largest is ~13k edges x 8 heads, 1.5x the
  edges per SM of the whole graph) would make its owner the critical path, since one program streams only
  one tile per memory round trip. The owner instead appends the hub's HUB-edge chunks to a work list (one
  atomic add on a counter reserves consecutive slots; no host sync). A second kernel reduces each slot's
  chunk to a partial (m, s) per head; a third merges the hub's partials (its slots are
  consecutive, merged in slot order, so the result is deterministic) and writes its chunk. Both walk the
  filled slots with a persistent grid (8 programs per SM), so an empty list costs two tiny launches.
- Arithmetic: base-2 exponentials with log2(e) folded into one FMA per element, and one reciprocal per
  (node, head) -- the division becomes a multiply.
- Tiles of ~2048 elements and 4 warps, streamed tiles of 512 elements, and a hub past 16 of them where a streamed
  tile holds 128 edges or more (up to 4 heads), past 4 where it holds 64 (8 heads). Measured on an H200 against the
  former 4096-element tiles (2026-12-03): 208 -> 145 us (arxiv), 3609 -> 2825 (products). The hub threshold, in suite
  evals (expert, rungs and peers timed in alternation): ogbn-products-gat-4h ran 2700.7 us with the hub past 16 tiles
  (2026-12-04 04:15 UTC) against 2740.3 past 4 (01:37 UTC), where the L1+L2 rung, its hub past 8 of its 128-edge
  streams, was 2.1% faster; ogbn-arxiv-gat-8h ran 153.8 past 16 and 139.7 / 140.3 / 144.2 past 4 in three runs. (A
  do_bench sweep, the L2 flushed before each call, had ranked arxiv the other way: 166.8 past 16, 177.5 past 4.)
  Products has many segments of 512-2048 edges, each a chunk list to merge when split; arxiv's few long segments
  are faster split than walked by the program that owns 15 other nodes.
- Where the typical segment alone fills 256 elements (Reddit's 1 head x 493 edges) a node gets a program of its own,
  in a kernel of its own: the first 1024-element tile kept in registers, the rest streamed, hubs past 8 tiles
  appended to the work list. Folded into the tiled kernel (a one-node short tile beside the streamed path) the
  program took 128 registers, 4 programs a SM, and ran 393.9 us against the L1 rung's 367.1 (40 registers, 12 a SM);
  the hub split was not the cost (393.0 with no hub split).

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-03-h200-night/profiles/, summed up in docs/suite.md, section "Workloads under 40% of SOL in the
seven re-timed tasks, profiled again (call 4)". They are of the expert of 9744c8d, before the flat streams (1de677f)
and the hub threshold per graph (cfbc53a); the shipped expert has no profile of its own.
- ogbn-arxiv-gat-8h: 22.7% of SOL, bound by HBM; expert 153.8 us, SOL 34.9 us. In this run the expert put the hub
  past 16 tiles. The shipped expert keeps it past 4 tiles at 8 heads, which read 139.7 us in
  docs/runs/2026-12-04-h200 (25% of SOL there).
  Profile (segment_softmax__ogbn-arxiv-gat-8h.txt): `_segment_softmax_kernel` 109.8 us, 78% of the kernels' time;
  DRAM 1.02 TB/s, 21%; latency-bound (memory 31%, SM 49%); 90 registers, occupancy 30% of 31% possible; the hub
  kernels 16.2 + 14.0 us.
- ogbn-products-gat-4h: 32.7% of SOL, bound by HBM; expert 2700.7 us, SOL 882.1 us.
  Profile (segment_softmax__ogbn-products-gat-4h.txt): `_segment_softmax_kernel` 2.529 ms, 90%; DRAM 1.43 TB/s,
  30%; latency-bound (memory 36%, SM 56%); 91 registers, occupancy 30% of 31% possible; the hub kernels 159.9 +
  127.9 us.
Why, both: the short-segment tile's masked [NODES, MAXD, H] loads waste lanes on the log-normal degrees (a node of
degree 20 in a MAXD-64 tile), and 90-91 registers leave 5 programs of 4 warps per SM (31% occupancy possible), so
too little is in flight. This is the expert, not the chip: binning segments by length and fewer registers are
untried.
"""

import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _softmax_long_segment(s_ptr, out_ptr, seg_start, seg_end, n_heads, BLOCK_E: tl.constexpr, BLOCK_H: tl.constexpr):
    """Online softmax of one segment [seg_start, seg_end), streamed in [BLOCK_E, BLOCK_H] tiles (an empty segment
    stores nothing).

    The segment's scores are contiguous, so a tile is flat offsets from the segment's base pointer, masked by the
    element count: on an H200 (2026-12-03) that beat (edge, head) offsets masked per edge on all three workloads
    (185 / 2742 / 389 against 202 / 2825 / 394 us, benchmarks/residency_designs.py segment_softmax)."""
    offs_h = tl.arange(0, BLOCK_H)
    mask_h = (offs_h < n_heads)[None, :]
    tile = tl.arange(0, BLOCK_E)[:, None] * n_heads + offs_h[None, :]
    seg = s_ptr + seg_start * n_heads
    out = out_ptr + seg_start * n_heads
    n_elems = (seg_end - seg_start) * n_heads
    step = BLOCK_E * n_heads
    # pass 1: running max and rescaled sum per head; the first tile is kept for pass 2
    mask0 = (tile < n_elems) & mask_h
    x0 = tl.load(seg + tile, mask=mask0, other=float("-inf")) * _LOG2E
    m = tl.max(x0, axis=0)
    acc = tl.sum(tl.exp2(x0 - m[None, :]), axis=0)
    for e in range(step, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf")) * _LOG2E
        m_new = tl.maximum(m, tl.max(x, axis=0))
        acc = acc * tl.exp2(m - m_new) + tl.sum(tl.exp2(x - m_new[None, :]), axis=0)
        m = m_new
    inv = 1.0 / acc
    # pass 2: the first tile from registers, the rest re-read (from L2 / L1 for all but the largest hubs)
    tl.store(out + tile, tl.exp2(x0 - m[None, :]) * inv[None, :], mask=mask0)
    for e in range(step, n_elems, step):
        mask = (tile < n_elems - e) & mask_h
        x = tl.load(seg + e + tile, mask=mask, other=float("-inf")) * _LOG2E
        tl.store(out + e + tile, tl.exp2(x - m[None, :]) * inv[None, :], mask=mask)


@triton.jit
def _segment_softmax_kernel(
    s_ptr,
    out_ptr,
    offsets_ptr,
    work_ptr,
    count_ptr,
    num_nodes,
    n_heads,
    NODES: tl.constexpr,
    MAXD: tl.constexpr,
    BLOCK_H: tl.constexpr,
    BLOCK_E: tl.constexpr,
    HUB: tl.constexpr,
):
    pid = tl.program_id(0)
    offs_node = tl.arange(0, NODES)
    nodes = pid * NODES + offs_node
    mask_node = nodes < num_nodes
    start = tl.load(offsets_ptr + nodes, mask=mask_node, other=0).to(tl.int64)
    end = tl.load(offsets_ptr + nodes + 1, mask=mask_node, other=0).to(tl.int64)
    deg = end - start
    is_short = deg <= MAXD

    # short segments, all at once: a [NODES, MAXD, BLOCK_H] tile, read once, written once
    offs_d = tl.arange(0, MAXD)
    offs_h = tl.arange(0, BLOCK_H)
    edge = start[:, None] + offs_d[None, :]
    mask_e = (offs_d[None, :] < deg[:, None]) & (is_short & mask_node)[:, None]
    mask = mask_e[:, :, None] & (offs_h < n_heads)[None, None, :]
    offs = edge[:, :, None] * n_heads + offs_h[None, None, :]
    x = tl.load(s_ptr + offs, mask=mask, other=float("-inf")) * _LOG2E
    m = tl.max(x, axis=1)
    m = tl.where(m == float("-inf"), 0.0, m)  # empty or long segment: keep the masked lanes NaN-free
    p = tl.exp2(x - m[:, None, :])
    inv = 1.0 / tl.sum(p, axis=1)
    tl.store(out_ptr + offs, p * inv[:, None, :], mask=mask)

    # long segments of this tile, found in registers and streamed one at a time
    pending = mask_node & (deg > MAXD) & (deg <= HUB)
    n_long = tl.sum(pending.to(tl.int32), axis=0)
    for _ in range(n_long):
        k = tl.min(tl.where(pending, offs_node, NODES), axis=0)
        seg_start = tl.sum(tl.where(offs_node == k, start, 0), axis=0)
        seg_end = tl.sum(tl.where(offs_node == k, end, 0), axis=0)
        _softmax_long_segment(s_ptr, out_ptr, seg_start, seg_end, n_heads, BLOCK_E, BLOCK_H)
        pending = pending & (offs_node != k)

    # hubs: reserve consecutive work-list slots, one per HUB-edge chunk, for the split kernels
    hubs = mask_node & (deg > HUB)
    n_hubs = tl.sum(hubs.to(tl.int32), axis=0)
    for _ in range(n_hubs):
        k = tl.min(tl.where(hubs, offs_node, NODES), axis=0)
        seg_start = tl.sum(tl.where(offs_node == k, start, 0), axis=0)
        seg_end = tl.sum(tl.where(offs_node == k, end, 0), axis=0)
        _enqueue_hub(work_ptr, count_ptr, seg_start, seg_end, HUB)
        hubs = hubs & (offs_node != k)


@triton.jit
def _enqueue_hub(work_ptr, count_ptr, seg_start, seg_end, HUB: tl.constexpr):
    """Reserve consecutive work-list slots, one per HUB-edge chunk of the hub [seg_start, seg_end)."""
    n_chunks = (seg_end - seg_start + HUB - 1) // HUB
    base = tl.atomic_add(count_ptr, n_chunks.to(tl.int32)).to(tl.int64)
    for c in range(n_chunks):
        slot = work_ptr + (base + c) * 4
        tl.store(slot, seg_start)
        tl.store(slot + 1, seg_end)
        tl.store(slot + 2, base)
        tl.store(slot + 3, n_chunks)


@triton.jit
def _segment_per_node_kernel(
    s_ptr,
    out_ptr,
    offsets_ptr,
    work_ptr,
    count_ptr,
    n_heads,
    BLOCK_H: tl.constexpr,
    BLOCK_E: tl.constexpr,
    HUB: tl.constexpr,
):
    # one node: streamed by this program (its first tile read once), or, past HUB edges, enqueued for the split
    node = tl.program_id(0)
    seg_start = tl.load(offsets_ptr + node).to(tl.int64)
    seg_end = tl.load(offsets_ptr + node + 1).to(tl.int64)
    if seg_end - seg_start > HUB:
        _enqueue_hub(work_ptr, count_ptr, seg_start, seg_end, HUB)
    else:
        _softmax_long_segment(s_ptr, out_ptr, seg_start, seg_end, n_heads, BLOCK_E, BLOCK_H)


@triton.jit
def _hub_partial_kernel(
    s_ptr,
    work_ptr,
    count_ptr,
    part_m_ptr,
    part_s_ptr,
    n_heads,
    HUB: tl.constexpr,
    BLOCK_E: tl.constexpr,
    BLOCK_H: tl.constexpr,
):
    # a persistent walk over the filled work-list slots: the online (m, s) of one HUB-edge chunk, per head
    n_slots = tl.load(count_ptr)
    for slot in range(tl.program_id(0), n_slots, tl.num_programs(0)):
        seg_start = tl.load(work_ptr + slot * 4)
        seg_end = tl.load(work_ptr + slot * 4 + 1)
        base = tl.load(work_ptr + slot * 4 + 2)
        lo = seg_start + (slot - base) * HUB
        hi = tl.minimum(lo + HUB, seg_end)
        offs_e = tl.arange(0, BLOCK_E)
        offs_h = tl.arange(0, BLOCK_H)
        mask_h = offs_h < n_heads
        m = tl.full([BLOCK_H], float("-inf"), tl.float32)
        acc = tl.zeros([BLOCK_H], dtype=tl.float32)
        for e0 in range(lo, hi, BLOCK_E):
            edges = e0 + offs_e
            mask = (edges < hi)[:, None] & mask_h[None, :]
            x = tl.load(s_ptr + edges[:, None] * n_heads + offs_h[None, :], mask=mask, other=float("-inf")) * _LOG2E
            m_new = tl.maximum(m, tl.max(x, axis=0))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # padding heads stay -inf
            acc = acc * tl.exp2(m - m_safe) + tl.sum(tl.exp2(x - m_safe[None, :]), axis=0)
            m = m_new
        tl.store(part_m_ptr + slot * BLOCK_H + offs_h, m)
        tl.store(part_s_ptr + slot * BLOCK_H + offs_h, acc)


@triton.jit
def _hub_normalise_kernel(
    s_ptr,
    out_ptr,
    work_ptr,
    count_ptr,
    part_m_ptr,
    part_s_ptr,
    n_heads,
    HUB: tl.constexpr,
    BLOCK_E: tl.constexpr,
    BLOCK_H: tl.constexpr,
):
    # per filled slot: merge the hub's partials in slot order (deterministic), then write this chunk
    n_slots = tl.load(count_ptr)
    for slot in range(tl.program_id(0), n_slots, tl.num_programs(0)):
        seg_start = tl.load(work_ptr + slot * 4)
        seg_end = tl.load(work_ptr + slot * 4 + 1)
        base = tl.load(work_ptr + slot * 4 + 2)
        n_chunks = tl.load(work_ptr + slot * 4 + 3)
        offs_h = tl.arange(0, BLOCK_H)
        mask_h = offs_h < n_heads
        m = tl.full([BLOCK_H], float("-inf"), tl.float32)
        for c in range(base, base + n_chunks):
            m = tl.maximum(m, tl.load(part_m_ptr + c * BLOCK_H + offs_h))
        m = tl.where(mask_h, m, 0.0)
        acc = tl.zeros([BLOCK_H], dtype=tl.float32)
        for c in range(base, base + n_chunks):
            m_c = tl.load(part_m_ptr + c * BLOCK_H + offs_h)
            acc += tl.load(part_s_ptr + c * BLOCK_H + offs_h) * tl.exp2(m_c - m)
        inv = 1.0 / acc
        lo = seg_start + (slot - base) * HUB
        hi = tl.minimum(lo + HUB, seg_end)
        offs_e = tl.arange(0, BLOCK_E)
        for e0 in range(lo, hi, BLOCK_E):
            edges = e0 + offs_e
            mask = (edges < hi)[:, None] & mask_h[None, :]
            offs = edges[:, None] * n_heads + offs_h[None, :]
            x = tl.load(s_ptr + offs, mask=mask, other=float("-inf")) * _LOG2E
            tl.store(out_ptr + offs, tl.exp2(x - m[None, :]) * inv[None, :], mask=mask)


_NUM_WARPS = 4
_SM_COUNT = {}


def _num_sms(device) -> int:
    if device.type != "cuda":
        return 1  # interpreter: a small grid still exercises the slot loop
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


def _config(num_edges: int, num_nodes: int, n_heads: int):
    """(BLOCK_H, MAXD, NODES, BLOCK_E, HUB); NODES == 1 runs _segment_per_node_kernel, which has no short tile."""
    block_h = triton.next_power_of_2(n_heads)
    mean_degree = max(1, num_edges // max(1, num_nodes))
    if mean_degree * block_h >= 256:
        # long typical segments (Reddit: 493 edges x 1 head): a node per program, 1024-element tiles, a hub past 8
        block_e = max(16, 1024 // block_h)
        return block_h, block_e, 1, block_e, 8 * block_e
    # the short tile is sized for the typical node, 2048 elements; rarer, longer segments take the streamed path
    # (at most half the tile, so a program still owns >= 2 nodes) in 512-element tiles, a hub past 16 of them when
    # a tile holds >= 128 edges (products), past 4 when it holds 64 (arxiv): each measured faster on its graph
    maxd = max(4, min(triton.next_power_of_2(mean_degree), 1024 // block_h))
    nodes = max(1, min(16, 2048 // (maxd * block_h)))
    block_e = max(16, 512 // block_h)
    return block_h, maxd, nodes, block_e, (16 if block_e >= 128 else 4) * block_e


def solution(scores, offsets):
    assert scores.dim() == 2 and scores.is_contiguous(), "scores must be a contiguous [E, H] tensor"
    assert offsets.dim() == 1 and offsets.is_contiguous()
    num_edges, n_heads = scores.shape
    num_nodes = offsets.numel() - 1
    out = scores.new_empty(scores.shape)
    if num_nodes <= 0 or num_edges == 0:
        return out
    block_h, maxd, nodes, block_e, hub = _config(num_edges, num_nodes, n_heads)
    # the hub work list: every hub has > HUB edges, so it needs at most E / HUB + (number of hubs) slots
    max_slots = 2 * (num_edges // hub) + 1
    count = torch.zeros(1, dtype=torch.int32, device=scores.device)
    work = torch.empty((max_slots, 4), dtype=torch.int64, device=scores.device)
    part_m = torch.empty((max_slots, block_h), dtype=torch.float32, device=scores.device)
    part_s = torch.empty((max_slots, block_h), dtype=torch.float32, device=scores.device)
    if nodes == 1:
        _segment_per_node_kernel[(num_nodes,)](
            scores, out, offsets, work, count, n_heads, BLOCK_H=block_h, BLOCK_E=block_e, HUB=hub, num_warps=_NUM_WARPS
        )
    else:
        _segment_softmax_kernel[(triton.cdiv(num_nodes, nodes),)](
            scores,
            out,
            offsets,
            work,
            count,
            num_nodes,
            n_heads,
            NODES=nodes,
            MAXD=maxd,
            BLOCK_H=block_h,
            BLOCK_E=block_e,
            HUB=hub,
            num_warps=_NUM_WARPS,
        )
    # the number of filled slots is only known on the device: a fixed persistent grid walks them
    hub_grid = (min(max_slots, 8 * _num_sms(scores.device)),)
    _hub_partial_kernel[hub_grid](
        scores, work, count, part_m, part_s, n_heads, HUB=hub, BLOCK_E=block_e, BLOCK_H=block_h, num_warps=4
    )
    _hub_normalise_kernel[hub_grid](
        scores, out, work, count, part_m, part_s, n_heads, HUB=hub, BLOCK_E=block_e, BLOCK_H=block_h, num_warps=4
    )
    return out
