import torch  # noqa: F401
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    """Per-head RMSNorm of q and k followed by rotary position embedding, fused.

    q: [T, Hq, D] bfloat16, k: [T, Hkv, D] bfloat16, both contiguous; q_weight, k_weight: [D] bfloat16;
    positions: [T] int64; cos_sin_cache: [max_position, D] float32, row p = cos(p * f_i) | sin(p * f_i),
    i < D/2; eps: float (1e-6).
    For every token t and head h, with x = that head's D values in float32, c|s = cos_sin_cache[positions[t]]:
      n = x * rsqrt(mean(x^2) + eps) * weight;  n1, n2 = the two halves of n
      out = bf16(concat(n1 * c - n2 * s, n2 * c + n1 * s))
    Return (q_out, k_out): two new bfloat16 tensors shaped like q and k. Do not modify the inputs.
    """
    raise NotImplementedError
