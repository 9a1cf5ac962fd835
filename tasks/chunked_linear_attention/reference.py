"""Reference for chunked_linear_attention: the chunked form in fp32 PyTorch (as flash-linear-attention's naive
chunk reference writes it), since the quadratic masked form needs a T x T matrix per head (1 GB per head at
T = 16384).

Per chunk of C = 64 tokens: intra = tril(q k^T) v, inter = q S_prev, with S_prev the sum of k^T v over all
earlier chunks (a cumulative sum of per-chunk states, shifted by one). Everything is vectorised over batch,
heads and chunks; the inputs are upcast to fp32 first and the output rounded to the input dtype once.
"""

import torch

CHUNK = 64


def reference(q, k, v):
    B, H, T, D = q.shape
    pad = (-T) % CHUNK  # zero rows of k and v add nothing; padded outputs are dropped
    qf, kf, vf = (torch.nn.functional.pad(t.float(), (0, 0, 0, pad)) for t in (q, k, v))
    n = (T + pad) // CHUNK
    qc, kc, vc = (t.reshape(B, H, n, CHUNK, D) for t in (qf, kf, vf))
    kv = kc.transpose(-1, -2) @ vc  # [B, H, n, D, D]: each chunk's k^T v
    state = kv.cumsum(dim=2) - kv  # exclusive prefix: the state entering each chunk
    causal = torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=q.device).tril()
    intra = (qc @ kc.transpose(-1, -2)).masked_fill(~causal, 0.0) @ vc
    out = intra + qc @ state
    return out.reshape(B, H, T + pad, D)[:, :, :T].to(q.dtype)
