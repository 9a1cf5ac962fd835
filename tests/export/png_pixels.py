"""A PNG's size and pixels, read with the standard library (the tests add no image library): enough to tell a
rendered page from a blank one. 8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of pixel bytes)."""
    data = path.read_bytes()
    assert data[:8] == SIGNATURE, "not a PNG"
    pos, compressed, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
        pos += 12 + length
    assert header is not None
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    return width, height, _unfilter(zlib.decompress(compressed), width * bpp, bpp)


def _unfilter(raw: bytes, stride: int, bpp: int) -> list[bytes]:
    rows, previous = [], bytearray(stride)
    for start in range(0, len(raw), stride + 1):
        kind, row = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up, corner = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                row[i] = (row[i] + _paeth(left, up, corner)) & 0xFF
        rows.append(bytes(row))
        previous = row
    return rows


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def colours(rows: list[bytes], bpp: int = 3) -> dict[bytes, int]:
    """How many pixels of each colour."""
    counts: dict[bytes, int] = {}
    for row in rows:
        for i in range(0, len(row), bpp):
            pixel = row[i : i + bpp]
            counts[pixel] = counts.get(pixel, 0) + 1
    return counts
