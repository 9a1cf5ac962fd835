import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(q, k, v):
    """Causal linear attention (no softmax, no normalisation).

    q, k, v: [B, H, T, D] bfloat16, contiguous. Return a new [B, H, T, D] bfloat16 tensor o with
      o[b, h, t, :] = sum_{s <= t} (q[b, h, t, :] . k[b, h, s, :]) * v[b, h, s, :]
    computed with fp32 accumulation and rounded to bfloat16 once. Do not modify the inputs.
    """
    raise NotImplementedError
