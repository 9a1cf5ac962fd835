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


def _seq_lens(u: list[float], pick: int, order: list[int], lo: int, hi: int, total: int) -> list[int]:
    """Log-uniform lengths in [lo, hi] from the uniforms u, entry `pick` pinned to hi, summing exactly to total.

    Plain Python on a batch-sized list: a few dozen numbers, not worth a device round trip per step."""
    batch = len(u)
    assert batch * lo <= total <= batch * hi and lo <= hi
    lens = [math.exp(math.log(lo) + x * (math.log(hi) - math.log(lo))) for x in u]
    lens[pick] = float(hi)
    for _ in range(64):  # rescale the free entries until the clamped lengths sum to total
        pinned = [x >= hi for x in lens]
        free_sum = sum(x for x, p in zip(lens, pinned) if not p)
        target = total - hi * sum(pinned)
        if free_sum <= 0 or abs(free_sum - target) < 0.5:
            break
        lens = [x if p else min(max(x * target / free_sum, lo), hi) for x, p in zip(lens, pinned)]
    out = [min(max(round(x), lo), hi) for x in lens]
    diff = total - sum(out)
    while diff != 0:  # settle rounding one token at a time (at most ~batch steps)
        for i in order:
            if diff > 0 and out[i] < hi:
                out[i] += 1
                diff -= 1
            elif diff < 0 and out[i] > lo:
                out[i] -= 1
                diff += 1
            if diff == 0:
                break
    return out


def _block_tables(
    pages: torch.Tensor, max_pages: int, num_blocks: int, g: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each sequence's pages: consecutive entries of a shuffled pool; padding entries point to any page.
    Also returns which entries are live (page index < the sequence's page count)."""
    device = pages.device
    perm = torch.randperm(num_blocks, generator=g, device=device)
    batch = pages.shape[0]
    padding = perm[torch.randint(0, num_blocks, (batch, max_pages), generator=g, device=device)]
    start = torch.cumsum(pages, 0) - pages
    col = torch.arange(max_pages, device=device)
    in_use = col[None, :] < pages[:, None]
    mine = perm[(start[:, None] + col[None, :]).clamp_(max=num_blocks - 1)]
    return torch.where(in_use, mine, padding), in_use


def make_inputs(params: dict, seed: int, device) -> tuple:
    B = int(params["batch"])
    Hq, Hkv, D = int(params["heads_q"]), int(params["heads_kv"]), int(params["head_dim"])
    bs = int(params["block_size"])
    dtype = getattr(torch, params["dtype"])
    g = torch.Generator(device=device).manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, device=device)

    u_lens = torch.rand(B, generator=g, device=device, dtype=torch.float64).tolist()
    pick = int(torch.randint(0, B, (1,), generator=g, device=device))
    order = torch.randperm(B, generator=g, device=device).tolist()
    max_len = int(params["max_len"])
    lens_list = _seq_lens(u_lens, pick, order, int(params["min_len"]), max_len, int(params["total_tokens"]))
    lens = torch.tensor(lens_list, dtype=torch.int64, device=device)
    pages = (lens + bs - 1) // bs
    max_pages = -(-max_len // bs)
    used = sum(-(-n // bs) for n in lens_list)
    num_blocks = used + max(4, used // 32)
    block_tables, in_use = _block_tables(pages, max_pages, num_blocks, g)

    u = randn(Hkv, D)
    u = u / u.norm(dim=-1, keepdim=True)
    G = Hq // Hkv
    query = 0.8 * randn(B, Hkv, G, D) + 2.0 * u[None, :, None, :]
    query = query.reshape(B, Hq, D)

    # Mark the cache slots that hold a live token: slot j of page p of sequence b with p * bs + j < lens[b]
    # (a sequence's pages are distinct, so one scatter over all in-use entries does it).
    token = torch.arange(max_pages, device=device)[:, None] * bs + torch.arange(bs, device=device)[None, :]
    live = torch.zeros(num_blocks, bs, dtype=torch.bool, device=device)
    live[block_tables[in_use]] = (token[None, :, :] < lens[:, None, None]).expand(B, max_pages, bs)[in_use]
    first = torch.zeros(num_blocks, bs, dtype=torch.bool, device=device)
    first[block_tables[:, 0], 0] = True

    k_cache = randn(num_blocks, bs, Hkv, D)
    v_cache = randn(num_blocks, bs, Hkv, D)
    heavy = (torch.rand(num_blocks, bs, generator=g, device=device) < 0.005) & live | first
    # Heavy hitters score ~+4 against their group's queries; stale slots ~+13, so they would dominate.
    shift = heavy.float() * (2.0 * math.sqrt(D)) + (~live).float() * (6.5 * math.sqrt(D))
    k_cache.add_(shift[:, :, None, None] * u)
    v_cache.mul_(torch.where(live, 1.0, 4.0)[:, :, None, None])
    v_cache.add_(live[:, :, None, None] * (0.5 * randn(Hkv, D)))
    return (
        query.to(dtype).contiguous(),
        k_cache.to(dtype).contiguous(),
        v_cache.to(dtype).contiguous(),
        block_tables.to(torch.int32).contiguous(),
        lens.to(torch.int32),
    )
