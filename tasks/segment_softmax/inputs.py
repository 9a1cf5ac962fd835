"""Inputs for segment_softmax: per-edge attention scores of a graph-attention layer, edges grouped by destination.

The graph is synthetic but shaped like the real one named in each workload: the same number of nodes and
edges, and in-degrees drawn log-normally (a heavy right tail: most nodes have a few to a few tens of incoming
edges, a few hubs have thousands), optionally with a self-loop on every node (min_degree = 1, as GAT adds) and
optionally one extra hub of a given degree. Scores imitate GAT's leaky-ReLU attention logits: 3 * N(0, 1).
"""

import torch


def _degrees(nodes: int, edges: int, sigma: float, min_degree: int, hub_degree: int, gen) -> torch.Tensor:
    """nodes in-degrees >= min_degree, log-normal above it, summing exactly to edges."""
    device = gen.device
    deg = torch.full((nodes,), min_degree, dtype=torch.int64, device=device)
    spare = edges - nodes * min_degree - hub_degree
    assert spare >= 0, "too few edges for min_degree and hub_degree"
    weights = torch.exp(sigma * torch.randn(nodes, generator=gen, device=device, dtype=torch.float64))
    extra = torch.floor(weights / weights.sum() * spare).to(torch.int64)
    short = spare - int(extra.sum())  # 0 <= short < nodes after flooring
    extra[torch.randperm(nodes, generator=gen, device=device)[:short]] += 1
    deg += extra
    if hub_degree:
        deg[torch.randint(nodes, (1,), generator=gen, device=device)] += hub_degree
    return deg


def make_inputs(params: dict, seed: int, device) -> tuple:
    nodes = int(params["nodes"])
    edges = int(params["edges"])
    heads = int(params["heads"])
    gen = torch.Generator(device=device).manual_seed(seed)
    deg = _degrees(
        nodes,
        edges,
        float(params.get("sigma", 1.0)),
        int(params.get("min_degree", 0)),
        int(params.get("hub_degree", 0)),
        gen,
    )
    offsets = torch.zeros(nodes + 1, dtype=torch.int64, device=device)
    offsets[1:] = torch.cumsum(deg, 0)
    scores = 3.0 * torch.randn(edges, heads, generator=gen, device=device, dtype=torch.float32)
    return scores, offsets
