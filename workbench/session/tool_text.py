"""Text for the model that is always valid UTF-8.

Python reads a file name that is not UTF-8 as lone surrogates (surrogateescape); a tool result holding one is
refused by the API's JSON encoder on every later request, and on a resume too, since the log keeps it. So every
tool result passes through safe_text: such characters are shown as \\xNN (the byte they stand for) or \\uXXXX.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\ud800-\udfff\x00]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's spelling of one byte that was not UTF-8
        return f"\\x{code - 0xDC00:02x}"
    if code == 0:  # a NUL is no use to the model and some servers refuse it in JSON
        return "\\x00"
    return f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """`text` with lone surrogates and NULs written as escapes: encodable as UTF-8, so as JSON for any API."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def is_clean_name(name: str) -> bool:
    """Whether a file name reads as it is (no byte that is not UTF-8, no NUL)."""
    return _UNSAFE.search(name) is None
