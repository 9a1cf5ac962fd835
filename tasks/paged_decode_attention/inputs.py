"""Inputs for paged_decode_attention: one decode step of a batch over a vLLM-style paged KV cache.

Sequence lengths are drawn log-uniformly between min_len and max_len, rescaled so that they sum to
exactly total_tokens (so the bytes the problem must read are a function of the workload), and one
sequence is always max_len long. Each sequence's pages are scattered over the cache pool at random
(a shuffled pool with ~3% free pages), as after many allocations and frees.

Contents imitate a trained model: each KV head has a direction u that every query of its group leans
towards, and a few keys per sequence (token 0, the attention sink, and ~0.5% "heavy hitters") point
along u, so each query's softmax mixes a few large scores with a diffuse tail; values have per-channel
means. Cache slots that belong to no live token (the tail of each sequence's last page, free pages, and
the pages that block_tables' padding entries point to) hold stale data whose keys score very high: a
kernel that reads past seq_len is visibly wrong.
"""

import math

import torch


def _seq_lens(g: torch.Generator, batch: int, lo: int, hi: int, total: int) -> torch.Tensor:
    assert batch * lo <= total <= batch * hi and lo <= hi
    u = torch.rand(batch, generator=g, dtype=torch.float64)
    lens = torch.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))
    lens[torch.randint(0, batch, (1,), generator=g)] = hi
    for _ in range(64):  # rescale the free entries until the clamped lengths sum to total
        pinned = lens >= hi
        free_sum = float(lens[~pinned].sum())
        target = total - hi * int(pinned.sum())
        if free_sum <= 0 or abs(free_sum - target) < 0.5:
            break
        lens = torch.where(pinned, lens, (lens * (target / free_sum)).clamp(lo, hi))
    lens = lens.round().long().clamp(lo, hi)
    diff = total - int(lens.sum())
    order = torch.randperm(batch, generator=g)
    while diff != 0:  # settle rounding one token at a time (at most ~batch steps)
        for i in order.tolist():
            if diff > 0 and lens[i] < hi:
                lens[i] += 1
                diff -= 1
            elif diff < 0 and lens[i] > lo:
                lens[i] -= 1
                diff += 1
            if diff == 0:
                break
    return lens


def make_inputs(params: dict, seed: int, device) -> tuple:
    B = int(params["batch"])
    Hq, Hkv, D = int(params["heads_q"]), int(params["heads_kv"]), int(params["head_dim"])
    bs = int(params["block_size"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device="cpu").manual_seed(seed)

    lens = _seq_lens(g, B, int(params["min_len"]), int(params["max_len"]), int(params["total_tokens"]))
    pages = (lens + bs - 1) // bs
    max_pages = -(-int(params["max_len"]) // bs)
    used = int(pages.sum())
    num_blocks = used + max(4, used // 32)
    perm = torch.randperm(num_blocks, generator=g)
    block_tables = perm[torch.randint(0, num_blocks, (B, max_pages), generator=g)]  # padding: any page
    start = torch.cumsum(pages, 0) - pages
    for b in range(B):
        block_tables[b, : pages[b]] = perm[start[b] : start[b] + pages[b]]

    u = torch.randn(Hkv, D, generator=g)
    u = u / u.norm(dim=-1, keepdim=True)
    G = Hq // Hkv
    query = 0.8 * torch.randn(B, Hkv, G, D, generator=g) + 2.0 * u[None, :, None, :]
    query = query.reshape(B, Hq, D)

    # Mark the cache slots that hold a live token: slot j of page p of sequence b with p * bs + j < lens[b].
    live = torch.zeros(num_blocks, bs, dtype=torch.bool)
    first = torch.zeros(num_blocks, bs, dtype=torch.bool)
    slot = torch.arange(bs)
    for b in range(B):
        phys = block_tables[b, : pages[b]]
        live[phys] = (torch.arange(int(pages[b]))[:, None] * bs + slot[None, :]) < lens[b]
        first[phys[0], 0] = True

    k_cache = torch.randn(num_blocks, bs, Hkv, D, generator=g)
    v_cache = torch.randn(num_blocks, bs, Hkv, D, generator=g)
    heavy = (torch.rand(num_blocks, bs, generator=g) < 0.005) & live | first
    # Heavy hitters score ~+4 against their group's queries; stale slots ~+13, so they would dominate.
    shift = heavy.float() * (2.0 * math.sqrt(D)) + (~live).float() * (6.5 * math.sqrt(D))
    k_cache.add_(shift[:, :, None, None] * u)
    v_cache.mul_(torch.where(live, 1.0, 4.0)[:, :, None, None])
    v_cache.add_(live[:, :, None, None] * (0.5 * torch.randn(Hkv, D, generator=g)))

    def out(t: torch.Tensor) -> torch.Tensor:
        return t.contiguous().to(device)

    return (
        out(query.to(dtype)),
        out(k_cache.to(dtype)),
        out(v_cache.to(dtype)),
        out(block_tables.to(torch.int32)),
        out(lens.to(torch.int32)),
    )
