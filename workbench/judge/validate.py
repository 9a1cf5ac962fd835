"""Checking a judge's answer: the JSON shape, the scores, and every citation against the judged file.

A citation counts only where its lines hold its quote, from the first cited line to the last; where none of
the quoted text is addressed to the judge (flagged: see injection.py); and, in the solution, where the quoted
text is code, not a comment, a docstring or a string literal that claims it (see code_spans.py).

A citation names the item of its level that it evidences (`item`), or `null` for what the file does instead of
the level's items. A solution citation of an item with `code` patterns (guidance.toml) counts only where the cited
lines' code, comments and strings taken out, holds one of them: a line that merely mentions `tl.dot` in a comment,
or real code of another kind, is not evidence of a tensor-core item. A level's score is backed by the items it
cites: a score s of a level with n items needs citations of at least max(1, floor(s * n / 100)) of them (all n
for 100, none for 0).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from workbench.guidance import GuidanceItem
from workbench.judge.code_spans import code_mask, code_only
from workbench.judge.fence import neutralised
from workbench.judge.injection import Flag, flagged_lines
from workbench.judge.result import LEVELS, PART_FILES, SOLUTION_FILE, Citation, LevelScore

Key = tuple[str, str]  # (part, level): ("design", "L1")
MAX_CITATIONS = 4
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)
_LINE_NUMBER = re.compile(r"(?m)^\s*\d+\| ?")  # the listing's prefix, in case a quote copied it
_ELLIPSIS = re.compile(r"\.\.\.|…")
MIN_CODE_SHARE = 0.5  # of a solution quote's characters (whitespace aside) that must be code


class JudgedText:
    """A judged file as its citations are checked: its lines, its flagged lines, and for the solution which
    characters are code."""

    def __init__(self, name: str, text: str, flags: list[Flag] | None = None) -> None:
        self.name, self.text = name, text
        self.lines = text.splitlines()
        self.flagged = flagged_lines(flags or [], name)
        self.code = code_mask(text) if name == SOLUTION_FILE else None


class AnswerError(ValueError):
    """The answer holds no JSON object; the message says why."""


@dataclass
class CheckedAnswer:
    valid: dict[Key, LevelScore] = field(default_factory=dict)
    invalid: dict[Key, list[str]] = field(default_factory=dict)  # what is wrong with each rejected level
    general: str | None = None  # a problem of the whole answer (not JSON), which every level shares

    def problems(self) -> list[str]:
        """One line per problem, naming its level: what the model is told on a retry."""
        if self.general:
            return [self.general]
        return [f"{part} {level}: {text}" for (part, level), texts in self.invalid.items() for text in texts]


def parse_json(text: str) -> dict[str, Any]:
    """The JSON object of an answer: the whole text, a ```json fence, or the outermost braces."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    error = "no JSON object found"
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
            continue
        if isinstance(value, dict):
            return value
        error = f"the JSON is a {type(value).__name__}, not an object"
    raise AnswerError(f"the answer is not a JSON object ({error})")


def check_answer(text: str, files: dict[str, JudgedText], parts: tuple[str, ...],
                 items: list[GuidanceItem]) -> CheckedAnswer:  # fmt: skip
    """Check every level of `parts` in the answer against the guidance's `items`; `files` maps a judged file's
    name to it."""
    keys = [(part, level) for part in parts for level in LEVELS]
    try:
        data = parse_json(text)
    except AnswerError as exc:
        return CheckedAnswer(invalid={key: [str(exc)] for key in keys}, general=str(exc))
    checked = CheckedAnswer()
    for part, level in keys:
        section = data.get(part)
        raw = section.get(level) if isinstance(section, dict) else None
        level_items = [item for item in items if f"L{item.level}" == level]
        score, problems = _check_level(raw, files[PART_FILES[part]], level_items)
        if score is None:
            checked.invalid[(part, level)] = problems
        else:
            checked.valid[(part, level)] = score
    return checked


def _check_level(raw: Any, judged: JudgedText, items: list[GuidanceItem]) -> tuple[LevelScore | None, list[str]]:
    if raw is None:
        return None, ["missing from the answer"]
    if not isinstance(raw, dict):
        return None, [f"must be an object with score, reason and evidence (got {type(raw).__name__})"]
    problems = []
    score = raw.get("score")
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    if not isinstance(score, int) or isinstance(score, bool) or not 0 <= score <= 100:
        problems.append(f"score must be an integer from 0 to 100 (got {score!r})")
    reason = raw.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        problems.append("reason must be a non-empty string")
    evidence = raw.get("evidence")
    citations: list[Citation] = []
    if not isinstance(evidence, list) or not 1 <= len(evidence) <= MAX_CITATIONS:
        count = len(evidence) if isinstance(evidence, list) else type(evidence).__name__
        problems.append(f"evidence must list 1 to {MAX_CITATIONS} citations (got {count})")
    else:
        for entry in evidence:
            citation, problem = check_citation(entry, judged, items)
            if problem:
                problems.append(problem)
            elif citation:
                citations.append(citation)
    if problems:
        return None, problems
    assert isinstance(score, int) and isinstance(reason, str)
    unbacked = _unbacked(score, citations, items)
    if unbacked:
        return None, [unbacked]
    return LevelScore(score, reason.strip(), tuple(citations)), []


def items_needed(score: int, count: int) -> int:
    """How many of a level's `count` items a score must cite: max(1, floor(score * count / 100)), none for 0."""
    return 0 if score == 0 or count == 0 else max(1, score * count // 100)


def _unbacked(score: int, citations: list[Citation], items: list[GuidanceItem]) -> str | None:
    """What is wrong when the score claims more items than the citations evidence, else None."""
    needed = items_needed(score, len(items))
    cited = sorted({c.item for c in citations if c.item is not None})
    if len(cited) >= needed:
        return None
    ids = ", ".join(item.id for item in items)
    return (f"a score of {score} needs citations of at least {needed} of the level's {len(items)} items ({ids}); "
            f"the evidence cites {len(cited)}{': ' + ', '.join(cited) if cited else ''}: cite the code or text "
            "that realises each item scored, or lower the score")  # fmt: skip


def check_citation(entry: Any, judged: JudgedText,
                   items: list[GuidanceItem] | tuple[()] = ()) -> tuple[Citation | None, str | None]:  # fmt: skip
    """The citation if it counts (see the module's docstring), else a one-line problem. `items` are the items of
    the cited level (none: it has none, and a citation names none)."""
    file = judged.name
    if not isinstance(entry, dict):
        return None, f"a citation must be an object with file, start, end and quote (got {type(entry).__name__})"
    cited_file = entry.get("file", file)
    start, end, quote = entry.get("start"), entry.get("end"), entry.get("quote")
    if cited_file != file:
        return None, f"a citation names {cited_file!r}; this part is judged on {file}"
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (start, end)):
        return None, f"citation of {file}: start and end must be integer line numbers (got {start!r}, {end!r})"
    assert isinstance(start, int) and isinstance(end, int)
    where = f"{file}:{start}" if start == end else f"{file}:{start}-{end}"
    if start < 1 or end < start:
        return None, f"citation {where} is not a range of lines (start >= 1 and end >= start)"
    if end > len(judged.lines):
        return None, f"citation {where} does not exist (the file has {len(judged.lines)} lines)"
    if not isinstance(quote, str) or not quote.strip():
        return None, f"citation {where} has no quote"
    item, problem = _cited_item(entry.get("item"), where, items)
    if problem:
        return None, problem
    cited = judged.lines[start - 1 : end]
    matched = quote_span(quote, cited) or quote_span(quote, [neutralised(line) for line in cited])
    if matched is None:
        return None, f"citation {where} does not hold the quote {_short(quote)}"
    rows = {row for row, _ in matched}
    if min(rows) != 0 or max(rows) != end - start:
        return None, (f"citation {where} is wider than its quote (on lines {start + min(rows)}-{start + max(rows)}): "
                      "cite only the lines the quote is on")  # fmt: skip
    if judged.flagged & {start + row for row in rows}:
        return None, f"citation {where} quotes text addressed to the judge, which is not evidence"
    if judged.code is not None:
        code = sum(judged.code[start - 1 + row][col] for row, col in matched)
        if code < MIN_CODE_SHARE * len(matched):
            return None, (f"citation {where} quotes a comment, docstring or string literal, not code: cite the "
                          "code that realises the item")  # fmt: skip
        if item is not None and not item.code_matches(code_only(cited, judged.code[start - 1 : end])):
            kinds = " or ".join(f"/{pattern}/" for pattern in item.code)
            return None, (f"citation {where} is given for {item.id}, but its code holds none of what realises "
                          f"{item.id} ({kinds}): cite the code that realises {item.id}, or cite this as what the "
                          'file does instead ("item": null)')  # fmt: skip
    return Citation(file, start, end, quote, item.id if item is not None else None), None


def _cited_item(raw: Any, where: str, items: list[GuidanceItem] | tuple[()]) -> tuple[GuidanceItem | None, str | None]:
    """The item a citation names: one of its level's, or None for what the file does instead."""
    if raw is None:
        return None, None
    ids = [item.id for item in items]
    for item in items:
        if item.id == raw:
            return item, None
    if not ids:
        return None, f'citation {where} names item {raw!r}, but this level has no items: give "item": null'
    return None, (f"citation {where} names item {raw!r}, which is not an item of this level: give one of "
                  f'{", ".join(ids)}, or null for what the file does instead')  # fmt: skip


def _normal(text: str) -> str:
    return " ".join(text.split())


def _haystack(lines: list[str]) -> tuple[str, list[tuple[int, int] | None]]:
    """The lines joined with whitespace collapsed to single spaces, and where each character came from (None for a
    space, which stands for a run of whitespace)."""
    chars: list[str] = []
    where: list[tuple[int, int] | None] = []
    for row, line in enumerate(lines):
        for col, ch in enumerate(line):
            if ch.isspace():
                if chars and chars[-1] != " ":
                    chars.append(" ")
                    where.append(None)
            else:
                chars.append(ch)
                where.append((row, col))
        if chars and chars[-1] != " ":
            chars.append(" ")
            where.append(None)
    return "".join(chars), where


def quote_span(quote: str, lines: list[str]) -> list[tuple[int, int]] | None:
    """Where the quote occurs in the lines, whitespace normalised, as the (row, column) of each character it
    matched (whitespace aside), or None. An ellipsis may stand for elided text; a copied line-number prefix is
    ignored."""
    haystack, where = _haystack(lines)
    for candidate in (quote, _LINE_NUMBER.sub("", quote)):
        fragments = [_normal(f) for f in _ELLIPSIS.split(candidate) if _normal(f)]
        position, matched = 0, []
        for fragment in fragments:
            found = haystack.find(fragment, position)
            if found < 0:
                break
            position = found + len(fragment)
            matched += [w for w in where[found:position] if w is not None]
        else:
            if matched:
                return matched
    return None


def quote_found(quote: str, lines: list[str]) -> bool:
    """Whether the quote occurs in the lines (see quote_span)."""
    return quote_span(quote, lines) is not None


def _short(quote: str, limit: int = 60) -> str:
    flat = _normal(quote)
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)
