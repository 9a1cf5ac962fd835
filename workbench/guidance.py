"""Expert guidance: the L1/L2/L3 items of guidance/<task>/guidance.toml, with their dependencies."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from workbench.tasks import TaskFormatError

LEVEL_NAMES = {1: "L1 algorithm", 2: "L2 dataflow", 3: "L3 low-level optimisation"}


@dataclass(frozen=True)
class GuidanceItem:
    id: str
    level: int
    title: str
    text: str
    depends_on: tuple[str, ...]
    evidence: str
    # Regular expressions, any one of which the code realising the item must contain (the judge's check of a
    # citation of solution.py for this item); empty when no construct tells the item apart (values, ordering).
    code: tuple[str, ...] = ()

    def code_matches(self, code: str) -> bool:
        """Whether `code` (a solution's code with comments and strings taken out) holds one of the item's
        constructs; True for an item without `code` patterns."""
        return not self.code or any(re.search(pattern, code) for pattern in self.code)


def load_guidance(path: Path) -> list[GuidanceItem]:
    """The items of a guidance.toml, checked: ids unique, levels 1-3, dependencies known."""
    where = path / "guidance.toml" if path.is_dir() else path
    try:
        data = tomllib.loads(where.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TaskFormatError(f"{where}: cannot read guidance: {exc}") from None
    items = []
    for i, raw in enumerate(data.get("item", [])):
        try:
            item = GuidanceItem(
                id=str(raw["id"]),
                level=int(raw["level"]),
                title=str(raw["title"]).strip(),
                text=str(raw["text"]).strip(),
                depends_on=tuple(raw.get("depends_on", [])),
                evidence=str(raw.get("evidence", "")).strip(),
                code=_code_patterns(raw.get("code", []), f"{where}: field 'item[{i}].code'"),
            )
        except KeyError as exc:
            raise TaskFormatError(f"{where}: missing field 'item[{i}].{exc.args[0]}'") from None
        if item.level not in LEVEL_NAMES:
            raise TaskFormatError(f"{where}: field 'item[{i}].level' must be 1, 2 or 3")
        items.append(item)
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise TaskFormatError(f"{where}: field 'item.id' repeats an id: {ids}")
    for item in items:
        unknown = set(item.depends_on) - set(ids)
        if unknown:
            raise TaskFormatError(f"{where}: field 'depends_on' of {item.id} names unknown ids {sorted(unknown)}")
    return items


def _code_patterns(raw: object, field: str) -> tuple[str, ...]:
    """An item's `code`: one regular expression or a list of them, each non-empty and compilable."""
    patterns = [raw] if isinstance(raw, str) else raw
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p.strip() for p in patterns):
        raise TaskFormatError(f"{field} must be a regular expression or a list of them (non-empty strings)")
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise TaskFormatError(f"{field}: {pattern!r} is not a regular expression ({exc})") from None
        if compiled.search(""):
            raise TaskFormatError(f"{field}: {pattern!r} matches empty code, so it would tell nothing apart")
    return tuple(patterns)


def with_dependencies(items: list[GuidanceItem], levels: set[int]) -> list[GuidanceItem]:
    """The items of the given levels and, transitively, every item they depend on, in file order."""
    by_id = {item.id: item for item in items}
    wanted = {item.id for item in items if item.level in levels}
    frontier = list(wanted)
    while frontier:
        for dep in by_id[frontier.pop()].depends_on:
            if dep not in wanted:
                wanted.add(dep)
                frontier.append(dep)
    return [item for item in items if item.id in wanted]


def guidance_markdown(items: list[GuidanceItem], levels: set[int]) -> str:
    """The guidance an agent receives for the given levels, each item with its dependencies (an item
    of another level that a given item builds on is included and marked so)."""
    lines = ["# Expert guidance", ""]
    lines.append("An expert's design for this task, given to you level by level. Realise it in your kernel and say")
    lines.append("in DESIGN.md which items you implemented and how (a judge reads DESIGN.md and solution.py).")
    chosen = with_dependencies(items, levels)
    for level in sorted({item.level for item in chosen}):
        extra = "" if level in levels else " (only what the given levels build on)"
        lines += ["", f"## {LEVEL_NAMES[level]}{extra}"]
        for item in (i for i in chosen if i.level == level):
            deps = f" (builds on {', '.join(item.depends_on)})" if item.depends_on else ""
            lines += ["", f"### {item.id}: {item.title}{deps}", "", item.text]
    return "\n".join(lines) + "\n"


def parse_levels(text: str) -> set[int]:
    """`L1,L2,L3` or `1,3` or `all` -> {1, 2, 3}; a bad level is a ValueError naming it."""
    if text.strip().lower() == "all":
        return {1, 2, 3}
    levels = set()
    for part in text.split(","):
        part = part.strip().upper().removeprefix("L")
        if part not in ("1", "2", "3"):
            raise ValueError(f"unknown guidance level {part!r}: use L1, L2, L3 or all")
        levels.add(int(part))
    return levels
