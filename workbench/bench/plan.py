"""A bench plan: task x model x condition x seed sessions under one budget, mode and tool set, saved as plan.json.

Each session of the plan has a key (`TASK--MODEL--CONDITION--sSEED`) that names its folder under
`BENCH_DIR/sessions/`; the same command always makes the same plan, so a rerun finds its sessions.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PLAN_FILE = "plan.json"
PLAN_VERSION = 1
_LEVEL_NAMES = {"L1": 1, "L2": 2, "L3": 3}


class BenchUsageError(ValueError):
    """Bad input to `workbench bench` or `workbench report`: one line, exit status 2."""


@dataclass(frozen=True)
class ModelSpec:
    """`provider:model`; a scripted model plays the script file given for its name."""

    provider: str
    model: str
    script: str | None = None
    thinking: int | None = None  # Anthropic's extended thinking budget, tokens
    reasoning_effort: str | None = None  # an OpenAI-compatible server's reasoning effort

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"


@dataclass(frozen=True)
class SessionSpec:
    task: str
    model: ModelSpec
    condition: str
    seed: int

    @property
    def key(self) -> str:
        model = re.sub(r"[^A-Za-z0-9._-]+", "_", self.model.label)
        return f"{self.task}--{model}--{self.condition}--s{self.seed}"

    @property
    def levels(self) -> set[int]:
        return condition_levels(self.condition)


@dataclass(frozen=True)
class BenchPlan:
    tasks: list[str]
    models: list[ModelSpec]
    conditions: list[str]
    seeds: int
    budget: int
    mode: str
    root: str  # the project root the tasks were found under
    wall_clock_s: float | None = None
    cost_usd: float | None = None
    version: int = field(default=PLAN_VERSION)

    def sessions(self) -> list[SessionSpec]:
        """Every session of the plan, task-major, so an interrupted bench has whole tasks done first."""
        return [SessionSpec(task, model, condition, seed) for task in self.tasks for model in self.models
                for condition in self.conditions for seed in range(1, self.seeds + 1)]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchPlan:
        if data.get("version", PLAN_VERSION) > PLAN_VERSION:
            raise BenchUsageError(f"plan version {data['version']} is newer than this workbench reads")
        fields_ = {**data, "models": [ModelSpec(**m) for m in data["models"]]}
        return cls(**fields_)

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:12]


def condition_levels(condition: str) -> set[int]:
    """`unguided` -> {}, `all` -> {1, 2, 3}, `L1` -> {1}, `L1+L2` -> {1, 2}."""
    if condition == "unguided":
        return set()
    if condition == "all":
        return {1, 2, 3}
    try:
        return {_LEVEL_NAMES[part] for part in condition.split("+")}
    except KeyError:
        raise BenchUsageError(f"unknown condition {condition!r}: use unguided, all, L1, L2, L3 (or L1+L2)") from None


def condition_name(levels: list[int] | set[int]) -> str:
    """The inverse of condition_levels, for reading a session's levels back from its log."""
    chosen = sorted(set(levels))
    if not chosen:
        return "unguided"
    if chosen == [1, 2, 3]:
        return "all"
    return "+".join(f"L{level}" for level in chosen)


def parse_models(specs: list[str], scripts: dict[str, str]) -> list[ModelSpec]:
    models = []
    for spec in specs:
        provider, sep, model = spec.partition(":")
        if not sep or not provider or not model:
            raise BenchUsageError(f"--models wants provider:model, got {spec!r}")
        script = None
        if provider == "scripted":
            if model not in scripts:
                raise BenchUsageError(f"scripted model {model!r} needs --script {model}=PATH")
            script = str(Path(scripts[model]).resolve())
        models.append(ModelSpec(provider, model, script))
    if len({m.label for m in models}) != len(models):
        raise BenchUsageError("a model is listed twice in --models")
    return models


def parse_scripts(pairs: list[str]) -> dict[str, str]:
    scripts = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise BenchUsageError(f"--script wants NAME=PATH, got {pair!r}")
        if not Path(path).is_file():
            raise BenchUsageError(f"--script {name}: no file {path}")
        scripts[name] = path
    return scripts


def save_plan(plan: BenchPlan, bench_dir: Path) -> None:
    """Write plan.json, or check that the one there is the same plan (a rerun of the same command)."""
    path = bench_dir / PLAN_FILE
    if path.exists():
        existing = load_plan(bench_dir)
        if existing.to_dict() != plan.to_dict():
            raise BenchUsageError(f"{bench_dir} holds a different plan; use another --out or --resume {bench_dir}")
        return
    bench_dir.mkdir(parents=True, exist_ok=True)
    (bench_dir / "sessions").mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(plan.to_dict(), indent=2) + "\n")
    tmp.replace(path)


def load_plan(bench_dir: Path) -> BenchPlan:
    path = bench_dir / PLAN_FILE
    try:
        return BenchPlan.from_dict(json.loads(path.read_text()))
    except FileNotFoundError:
        raise BenchUsageError(f"{bench_dir}: no {PLAN_FILE} here (not a bench folder)") from None
    except (json.JSONDecodeError, TypeError, KeyError) as exc:
        raise BenchUsageError(f"{path}: not a bench plan ({exc})") from None
