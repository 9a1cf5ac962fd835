"""What a judgement is: per-level scores with cited evidence, and the two means JSdesign and JSimpl."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.judge.injection import Flag

LEVELS = ("L1", "L2", "L3")
PARTS = ("design", "implementation")
DESIGN_FILE, SOLUTION_FILE = "DESIGN.md", "solution.py"
PART_FILES = {"design": DESIGN_FILE, "implementation": SOLUTION_FILE}


@dataclass(frozen=True)
class Citation:
    """Lines `start`..`end` (1-based, inclusive) of `file`, which hold `quote`, as evidence of the guidance item
    `item` (None: what the file does instead of the level's items; judgements made before items were cited)."""

    file: str
    start: int
    end: int
    quote: str
    item: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"item": self.item, "file": self.file, "start": self.start, "end": self.end, "quote": self.quote}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Citation:
        item = data.get("item")
        return cls(str(data["file"]), int(data["start"]), int(data["end"]), str(data["quote"]),
                   str(item) if item is not None else None)  # fmt: skip

    def where(self) -> str:
        return f"{self.file}:{self.start}" if self.start == self.end else f"{self.file}:{self.start}-{self.end}"


@dataclass(frozen=True)
class LevelScore:
    """One level's score, 0-100. `valid` is False when the judge's answer for the level was rejected
    (twice) and the level was scored 0 for it; `reason` then says what was wrong."""

    score: int
    reason: str
    evidence: tuple[Citation, ...] = ()
    valid: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "reason": self.reason, "evidence": [c.to_dict() for c in self.evidence],
                "valid": self.valid}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LevelScore:
        evidence = tuple(Citation.from_dict(c) for c in data.get("evidence", []))
        return cls(int(data["score"]), str(data["reason"]), evidence, bool(data.get("valid", True)))


def _mean(levels: dict[str, LevelScore]) -> float:
    return sum(levels[name].score for name in LEVELS) / len(LEVELS)


@dataclass
class Judgement:
    """A runtime-blind judgement of a design note and a solution against a task's expert guidance."""

    task: str
    design: dict[str, LevelScore]  # "L1", "L2", "L3"
    implementation: dict[str, LevelScore]
    provider: str
    model: str
    prompt_sha256: str
    attempts: int  # model calls: 1, or 2 when the first answer was invalid
    problems: list[str] = field(default_factory=list)  # what was wrong with the first answer (fixed or not)
    answers: list[str] = field(default_factory=list)  # the model's raw answers, for audit
    solution_sha256: str = ""
    design_sha256: str | None = None  # None: there was no design note
    session: str | None = None
    turn: int | None = None  # the session turn whose files were judged
    flags: list[Flag] = field(default_factory=list)  # text of the judged files addressed to the judge
    judged: dict[str, Any] | None = None  # of a session: which files were judged (see judge.scored.JudgedFiles)

    @property
    def js_design(self) -> float:
        """JSdesign: the mean of the three design levels."""
        return _mean(self.design)

    @property
    def js_impl(self) -> float:
        """JSimpl: the mean of the three implementation levels."""
        return _mean(self.implementation)

    def part(self, name: str) -> dict[str, LevelScore]:
        return self.design if name == "design" else self.implementation

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "js_design": self.js_design,
            "js_impl": self.js_impl,
            "design": {k: v.to_dict() for k, v in self.design.items()},
            "implementation": {k: v.to_dict() for k, v in self.implementation.items()},
            "provider": self.provider,
            "model": self.model,
            "prompt_sha256": self.prompt_sha256,
            "attempts": self.attempts,
            "problems": list(self.problems),
            "answers": list(self.answers),
            "solution_sha256": self.solution_sha256,
            "design_sha256": self.design_sha256,
            "session": self.session,
            "turn": self.turn,
            "flags": [flag.to_dict() for flag in self.flags],
            "judged": self.judged,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judgement:
        """The inverse of to_dict (the means are recomputed, not read)."""
        return cls(
            task=str(data["task"]),
            design={k: LevelScore.from_dict(v) for k, v in data["design"].items()},
            implementation={k: LevelScore.from_dict(v) for k, v in data["implementation"].items()},
            provider=str(data["provider"]),
            model=str(data["model"]),
            prompt_sha256=str(data["prompt_sha256"]),
            attempts=int(data["attempts"]),
            problems=list(data.get("problems", [])),
            answers=list(data.get("answers", [])),
            solution_sha256=str(data.get("solution_sha256", "")),
            design_sha256=data.get("design_sha256"),
            session=data.get("session"),
            turn=data.get("turn"),
            flags=[Flag.from_dict(flag) for flag in data.get("flags") or []],
            judged=data.get("judged"),
        )
