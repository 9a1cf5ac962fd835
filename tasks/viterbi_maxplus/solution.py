import torch
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(emissions: torch.Tensor, transitions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Viterbi decoding: the highest-scoring state sequence of each of B chains.

    emissions:   [B, T, S] float32, contiguous; emissions[b, t, j] scores state j at step t.
    transitions: [S, S] float32, contiguous; transitions[i, j] scores moving from state i to j.

    score_0 = emissions[:, 0]; score_t[j] = max_i(score_{t-1}[i] + transitions[i, j]) + emissions[:, t, j].
    Returns (path, best_score): path [B, T] int64, the argmax sequence (path[:, T-1] = argmax_j score_{T-1}[j],
    path[:, t-1] = the maximising i of step t for j = path[:, t]); best_score [B] float32 = max_j score_{T-1}[j].
    Every argmax takes the lowest index among equal maxima. Both are new tensors; do not modify the inputs.
    """
    raise NotImplementedError
