"""The Ladder tab's Markdown fitted to the pane: a table wider than the pane is stacked, one small two-column table
per row (its first cell as the header, then each column's name beside its value), so no figure is ever cut.

Pure text: the tables are those of `workbench/ladder_report.py`, laid out here for a narrow terminal only."""

from __future__ import annotations

import re

_CELL_SPLIT = re.compile(r"(?<!\\)\|")  # a cell's own | is written \|
CELL_PADDING = 3  # a rendered cell's border and its space on each side


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in _CELL_SPLIT.split(line.strip())[1:-1]]


def table_width(rows: list[list[str]]) -> int:
    """The columns a table needs to show every cell on one line (its header's words may wrap)."""
    columns = zip(*rows, strict=False)
    return sum(max(len(cell) for cell in column) + CELL_PADDING for column in columns) + 1


def stacked(header: list[str], rows: list[list[str]]) -> list[str]:
    """Each row as its own two-column table: the row's first cell heads it, then every other column's name and value."""
    lines: list[str] = []
    for row in rows:
        lines += [f"| {header[0]} | {row[0]} |", "| --- | ---: |"]
        lines += [f"| {name} | {value} |" for name, value in zip(header[1:], row[1:], strict=False)]
        lines.append("")
    return lines


def fit_tables(markdown: str, width: int) -> str:
    """The Markdown with every table wider than `width` columns stacked; narrower tables are left as they are."""
    lines = markdown.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        if not lines[index].lstrip().startswith("|"):
            out.append(lines[index])
            index += 1
            continue
        end = index
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        block = lines[index:end]
        header, rows = _cells(block[0]), [_cells(line) for line in block[2:]]
        out += block if table_width([header, *rows]) <= width else stacked(header, rows)
        index = end
    return "\n".join(out) + ("\n" if markdown.endswith("\n") else "")
