"""fp8 conversions for Triton's CPU interpreter: round-to-nearest-even encoding of e4m3 (float8e4nv)
and e5m2 (float8e5) as the GPU's cvt.rn.satfinite does.

The interpreter's own encoder drops the carry when rounding up crosses a power of two (-31.7 becomes
-16, not -32, in e4m3). Values beyond the largest finite code saturate to it, as on the GPU (torch's
own cast gives NaN or inf there); NaN stays NaN.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np


def _positive_values(exp_bits: int, man_bits: int, bias: int, n_finite: int) -> Any:
    """Decoded values of the codes 0..n_finite-1 (the positive finite codes, in increasing order)."""
    codes = np.arange(n_finite)
    exp, man = codes >> man_bits, codes & ((1 << man_bits) - 1)
    scale = 1 << man_bits
    normal = (1.0 + man / scale) * np.exp2(exp - bias)
    return np.where(exp == 0, man / scale * np.exp2(1 - bias), normal)


# e4m3fn: no infinities, 0x7F is NaN, the largest finite code 0x7E is 448; e5m2: 0x7C is inf, max 57344
_FORMATS = {
    "fp8e4nv": (_positive_values(4, 3, 7, 0x7F), 0x7F),
    "fp8e5": (_positive_values(5, 2, 15, 0x7C), 0x7E),
}


def encode(values: Any, fmt: str) -> Any:
    """fp32 (or wider) values to fp8 codes (uint8), round to nearest even, saturating."""
    table, nan_code = _FORMATS[fmt]
    x = np.asarray(values, dtype=np.float64)
    mag = np.abs(x)
    hi = np.clip(np.searchsorted(table, mag), 1, len(table) - 1)
    lo = hi - 1
    d_lo, d_hi = mag - table[lo], table[hi] - mag
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo)
    code = np.where(mag >= table[-1], len(table) - 1, code)
    code = np.where(np.isnan(x), nan_code, code).astype(np.uint8)
    return code | (np.signbit(x).astype(np.uint8) << np.uint8(7))


def fp8_casts_round_to_nearest() -> str | None:
    import triton.language as tl
    import triton.runtime.interpreter as interpreter

    builder = interpreter.InterpreterBuilder
    rtne = interpreter._ir.ROUNDING_MODE.RTNE
    probe = interpreter.TensorHandle(np.array([31.7], dtype=np.float32), tl.float32)
    if int(interpreter.interpreter_builder.create_fp_to_fp(probe, tl.float8e4nv, rtne).data[0]) == 0x60:
        return None
    original = builder.create_fp_to_fp
    names = {tl.float8e4nv: "fp8e4nv", tl.float8e5: "fp8e5"}

    @functools.wraps(original)
    def create_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        fmt = names.get(dst_type.scalar)
        if fmt is None or rounding_mode not in (None, rtne) or src.dtype.scalar in names:
            return original(self, src, dst_type, rounding_mode)
        if src.dtype.scalar == tl.bfloat16:
            wide = (np.asarray(src.data).astype(np.uint32) << np.uint32(16)).view(np.float32)
        else:
            wide = np.asarray(src.data)
        return interpreter.TensorHandle(encode(wide, fmt), dst_type.scalar)

    builder.create_fp_to_fp = create_fp_to_fp
    return "interpreter: fp8 casts round to nearest even (saturating)"
