"""Which characters of a Python file are code: not a comment, not a docstring or other string literal, not blank.

An implementation citation counts only where the text it quotes is code, so a comment or a docstring that claims
an item ("# one pass over memory") or a string that spells the code out is no evidence of it. Python's own
tokenizer decides: comments and string literals are not code, except a short word-like string argument
(`eviction_policy="evict_first"`, `cache_modifier=".cg"`), which is how a kernel states some choices. Where the
tokenizer stops (an unterminated string or bracket, a broken indent), nothing after counts: such a file does not
run, and the text the tokenizer could not read is not known to be code.
"""

from __future__ import annotations

import io
import re
import token
import tokenize

_WORD_STRING = re.compile(r"""^[rbuRBU]{0,2}(['"])[\w.\-]{1,32}\1$""")  # "evict_first", ".cg", "bf16"
_NOT_CODE = {token.COMMENT, token.NL, token.NEWLINE, token.INDENT, token.DEDENT, token.ENDMARKER}


def code_mask(source: str) -> list[list[bool]]:
    """For each line of `source` (as str.splitlines gives them, as the judge's listing numbers them), whether each
    character is code. The tokenizer's rows end at "\\n" only; offsets into the whole text join the two, so a
    form feed or a Unicode line separator cannot shift a comment onto a line of code."""
    code = [False] * len(source)
    row_starts = [0] + [m.end() for m in re.finditer("\n", source)]
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source, newline="\n").readline):
            if tok.type in _NOT_CODE or (tok.type == token.STRING and not _WORD_STRING.match(tok.string)):
                continue
            first = row_starts[tok.start[0] - 1] + tok.start[1]
            last = row_starts[tok.end[0] - 1] + tok.end[1]
            code[first:last] = [not ch.isspace() for ch in source[first:last]]
    except (tokenize.TokenError, SyntaxError):
        pass  # what was read is marked; the rest stays not code
    mask, offset = [], 0
    for piece in source.splitlines(keepends=True):
        line = (piece.splitlines() or [""])[0]
        mask.append(code[offset : offset + len(line)])
        offset += len(piece)
    return mask


def code_only(lines: list[str], mask: list[list[bool]]) -> str:
    """The code of `lines` (with their rows of `code_mask`): comments, docstrings and string literals blanked, the
    lines joined and every run of whitespace one space, so an item's `code` patterns see the code alone."""
    kept = ["".join(ch if is_code else " " for ch, is_code in zip(line, row, strict=False)) for line, row in
            zip(lines, mask, strict=True)]  # fmt: skip
    return " ".join(" ".join(kept).split())
