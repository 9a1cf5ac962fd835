import torch
import triton  # noqa: F401
import triton.language as tl  # noqa: F401


def solution(
    query: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
) -> torch.Tensor:
    """One decode step of attention over a paged KV cache (grouped-query attention).

    query:        [B, H_q, D] bfloat16, the new token's query per head (contiguous).
    k_cache:      [num_blocks, block_size, H_kv, D] bfloat16, the key pool (contiguous).
    v_cache:      [num_blocks, block_size, H_kv, D] bfloat16, the value pool (contiguous).
    block_tables: [B, max_blocks] int32; token t of sequence b lives at page block_tables[b, t // block_size],
                  slot t % block_size. Entries past a sequence's last page are arbitrary valid page ids.
    seq_lens:     [B] int32, 1 <= seq_lens[b] <= max_blocks * block_size.

    Query head h attends with KV head h // (H_q // H_kv) to tokens 0..seq_lens[b]-1, scale 1/sqrt(D).
    Returns out: [B, H_q, D], a new tensor of query's dtype. No input may be modified.
    """
    raise NotImplementedError
