"""Reference for chunked_linear_attention in fp32 PyTorch, after flash-linear-attention's naive reference.

The inputs are upcast to fp32 first and the output rounded to the input dtype once.
"""

import torch

CHUNK = 64


def reference(q, k, v):
    B, H, T, D = q.shape
    pad = (-T) % CHUNK  # zero rows of k and v add nothing; padded outputs are dropped
    qf, kf, vf = (torch.nn.functional.pad(t.float(), (0, 0, 0, pad)) for t in (q, k, v))
    n = (T + pad) // CHUNK
    qc, kc, vc = (t.reshape(B, H, n, CHUNK, D) for t in (qf, kf, vf))
    kv = kc.transpose(-1, -2) @ vc  # [B, H, n, D, D]
    state = kv.cumsum(dim=2) - kv  # [B, H, n, D, D]
    causal = torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=q.device).tril()
    intra = (qc @ kc.transpose(-1, -2)).masked_fill(~causal, 0.0) @ vc
    out = intra + qc @ state
    return out.reshape(B, H, T + pad, D)[:, :, :T].to(q.dtype)
