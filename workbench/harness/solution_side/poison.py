"""Poison values for fresh outputs: a NaN with a payload no arithmetic produces, per dtype, so an
element the solution never wrote can be told apart from a NaN it computed."""

from __future__ import annotations

import torch

# (integer view dtype, bit pattern): quiet NaNs with a payload, so copies do not change them.
_FLOAT_POISON = {
    torch.float64: (torch.int64, 0x7FFC0000DEADBEEF),
    torch.float32: (torch.int32, 0x7FE1DEAD),
    torch.float16: (torch.int16, 0x7F01),
    torch.bfloat16: (torch.int16, 0x7FE1),
    # fp8 has no payload bits to spare: the negative NaN, which casting a NaN to fp8 does not produce (it gives +NaN)
    torch.float8_e4m3fn: (torch.int8, 0xFF),
    torch.float8_e5m2: (torch.int8, 0xFD),
}
_INT_POISON = {
    torch.int64: -0x5EAD5EAD5EAD5EAD,
    torch.int32: -0x5EAD5EAD,
    torch.int16: -0x5EAD,
    torch.int8: -0x5E,
    torch.uint8: 0xA5,
}


def _signed(bits: int, view: torch.dtype) -> int:
    width = torch.iinfo(view).bits
    return bits - (1 << width) if bits >= 1 << (width - 1) else bits


def poison_(tensor: object) -> None:
    """Fill a freshly allocated tensor (or each tensor of a tuple) with the poison of its dtype."""
    if isinstance(tensor, (tuple, list)):
        for t in tensor:
            poison_(t)
        return
    if not isinstance(tensor, torch.Tensor) or tensor.numel() == 0:
        return
    if tensor.dtype in _FLOAT_POISON:
        view, bits = _FLOAT_POISON[tensor.dtype]
        tensor.view(view).fill_(_signed(bits, view))
    elif tensor.dtype in _INT_POISON:
        tensor.fill_(_INT_POISON[tensor.dtype])


def poisoned_mask(tensor: torch.Tensor) -> torch.Tensor | None:
    """Where a tensor still holds the poison; None for dtypes that are not poisoned."""
    if tensor.dtype in _FLOAT_POISON:
        view, bits = _FLOAT_POISON[tensor.dtype]
        return tensor.contiguous().view(view) == _signed(bits, view)
    if tensor.dtype in _INT_POISON:
        return tensor == _INT_POISON[tensor.dtype]
    return None
