import torch
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(a: torch.Tensor, a_len: torch.Tensor, b: torch.Tensor, b_len: torch.Tensor) -> torch.Tensor:
    """Levenshtein distance of each pair (a[p, :a_len[p]], b[p, :b_len[p]]).

    a, b:         [B, L] int32 token ids, contiguous, padded (positions at or past the length are garbage).
    a_len, b_len: [B] int64, each in [0, L].

    Returns dist: [B] int32, a new tensor, the minimum number of single-token insertions, deletions and
    substitutions that turn a's prefix into b's. Do not modify the inputs.
    """
    raise NotImplementedError
