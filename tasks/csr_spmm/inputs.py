"""Inputs for csr_spmm: a GCN-normalised sparse adjacency in CSR form and a dense feature matrix.

Row lengths (node degrees) are log-normal with spread `sigma` -- a power law in practice: most rows
hold a few to a few tens of entries and a handful hold thousands -- and sum exactly to nnz, each at
least `min_deg` (1 when self-loops are added, as GCN does; 0 allows empty rows). Column ids are drawn
with power-law popularity (floor(K * u^2), then scattered by a multiplicative hash), so some columns
of X are read far more often than others, as hub nodes are in real graphs. Columns are sorted within
a row (canonical CSR, as graph libraries build it) and may repeat (a multigraph entry counts twice).
Values are the GCN normalisation 1 / sqrt(deg_row(i) * deg_col(j)), so every output row is an
average-like mix of O(1) size.
"""

import torch

_HASH = 2654435761  # prime: coprime to every K used


def _lengths(m: int, nnz: int, sigma: float, min_deg: int, gen: torch.Generator) -> torch.Tensor:
    spare = nnz - min_deg * m
    assert spare >= 0
    device = gen.device
    w = torch.exp(sigma * torch.randn(m, generator=gen, device=device, dtype=torch.float64))
    lengths = min_deg + torch.floor(w / w.sum() * spare).to(torch.int64)
    short = nnz - int(lengths.sum())  # 0 <= short < m
    lengths[torch.randperm(m, generator=gen, device=device)[:short]] += 1
    return lengths


def make_inputs(params: dict, seed: int, device) -> tuple:
    m = int(params["m"])
    k = int(params["k"])
    n = int(params["n"])
    nnz = int(params["nnz"])
    sigma = float(params.get("sigma", 1.0))
    min_deg = int(params.get("min_deg", 1))
    index_dtype = getattr(torch, params.get("index_dtype", "int32"))
    assert k % _HASH != 0

    gen = torch.Generator(device=device).manual_seed(seed)
    lengths = _lengths(m, nnz, sigma, min_deg, gen)
    row_ptr = torch.zeros(m + 1, dtype=torch.int64, device=device)
    row_ptr[1:] = torch.cumsum(lengths, 0)
    hot = torch.floor(k * torch.rand(nnz, generator=gen, device=device) ** 2).to(torch.int64).clamp_(max=k - 1)
    col_idx = (hot * _HASH + 7919) % k
    # canonical CSR: sort the columns within each row
    row_of = torch.repeat_interleave(torch.arange(m, dtype=torch.int64, device=device), lengths, output_size=nnz)
    col_idx = torch.sort(row_of * k + col_idx).values % k
    deg_col = torch.bincount(col_idx, minlength=k).clamp_(min=1).to(torch.float32)
    deg_row = lengths.clamp(min=1).to(torch.float32).repeat_interleave(lengths, output_size=nnz)
    values = torch.rsqrt(deg_row * deg_col[col_idx])
    x = torch.randn(k, n, generator=gen, device=device, dtype=torch.float32)
    return row_ptr.to(index_dtype).contiguous(), col_idx.to(index_dtype).contiguous(), values.contiguous(), x
