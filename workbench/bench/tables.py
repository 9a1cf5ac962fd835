"""The paper's tables, computed from session records: correctness, Sperf, all-correct speedup, judge
scores per level, the per-level ablation, turns to the first correct submission, tokens and cost.

Sperf of a group (a model under a condition, or all models) is the geometric mean over its sessions
(task x seed) of the task's speedup, an incorrect task counting 0.5; a group with a correct but untimed
session (the interpreter) has no Sperf: it is reported "untimed".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import mean, median

from workbench.bench.records import USAGE_FIELDS, SessionRecord
from workbench.harness.result import geomean
from workbench.judge.result import LEVELS
from workbench.score import INCORRECT_SPEEDUP, Baseline

UNTIMED = "untimed"
Cell = str | int | float | None
_ORDER = {"unguided": 0, "L1": 1, "L2": 2, "L3": 3, "all": 9}


@dataclass
class Table:
    name: str  # file stem of its CSV
    title: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    note: str = ""


def conditions_of(records: list[SessionRecord]) -> list[str]:
    return sorted({r.condition for r in records}, key=lambda c: (_ORDER.get(c, 5), c))


def models_of(records: list[SessionRecord]) -> list[str]:
    return sorted({r.model for r in records})


def _group(records: list[SessionRecord], model: str | None, condition: str) -> list[SessionRecord]:
    return [r for r in records if r.condition == condition and (model is None or r.model == model)]


def sperf_of(group: list[SessionRecord], baseline: Baseline | None = None) -> float | str | None:
    """Geomean over the group's sessions of speedup (0.5 when incorrect); "untimed"; None when empty."""
    if not group:
        return None
    values = []
    for record in group:
        outcome = record.outcome(baseline)
        if outcome.correct and not outcome.timed:
            return UNTIMED
        values.append(outcome.speedup if outcome.correct and outcome.speedup is not None else INCORRECT_SPEEDUP)
    return geomean(values)


def _per_model(records: list[SessionRecord], columns: list[str], row: Callable[[list[SessionRecord]], list[Cell]],
               with_all: bool = False) -> list[list[Cell]]:  # fmt: skip
    rows = []
    models: list[str | None] = [*models_of(records), *([None] if with_all else [])]
    for model in models:
        for condition in conditions_of(records):
            group = _group(records, model, condition)
            if group:
                rows.append([model or "all models", condition, *row(group)])
    return rows


def correctness_table(records: list[SessionRecord]) -> Table:
    def row(group: list[SessionRecord]) -> list[Cell]:
        correct = sum(r.correct for r in group)
        return [len(group), correct, correct / len(group), sum(r.auto_submitted for r in group)]

    columns = ["model", "condition", "sessions", "correct", "correct_rate", "auto_submitted"]
    note = (
        "A session counts its scored submission under the scoring rule it ran with (see above); auto_submitted: "
        "sessions that made no correct submission and had their best correct evaluation submitted for them."
    )
    return Table("correctness", "Correctness", columns, _per_model(records, columns, row), note)


def sperf_table(records: list[SessionRecord], baseline: Baseline | None = None, against: str = "reference") -> Table:
    def row(group: list[SessionRecord]) -> list[Cell]:
        return [len({r.task for r in group}), len(group), sperf_of(group, baseline)]

    columns = ["model", "condition", "tasks", "sessions", "sperf"]
    note = f"Speedup against {against}; geomean over tasks (and seeds), an incorrect task counting 0.5."
    return Table("sperf", "Sperf", columns, _per_model(records, columns, row, with_all=True), note)


def all_correct_table(records: list[SessionRecord], baseline: Baseline | None = None) -> Table:
    """The speedup of the models correct on every task of the bench (every session), per condition."""
    tasks = {r.task for r in records}
    table = Table("all_correct", "Speedup of the models correct on every task",
                  ["model", "condition", "tasks", "speedup"])  # fmt: skip
    for condition in conditions_of(records):
        for model in models_of(records):
            group = _group(records, model, condition)
            if group and {r.task for r in group} == tasks and all(r.correct for r in group):
                table.rows.append([model, condition, len(tasks), sperf_of(group, baseline)])
    return table


def judge_table(records: list[SessionRecord]) -> Table:
    parts = [f"design_{level}" for level in LEVELS] + [f"impl_{level}" for level in LEVELS]
    columns = ["model", "condition", "judged", "js_design", "js_impl", *parts]

    def row(group: list[SessionRecord]) -> list[Cell]:
        judged = [r.judgement for r in group if r.judgement is not None]
        if not judged:
            return [0, *([None] * (2 + len(parts)))]
        levels = [float(mean(j.design[lv].score for j in judged)) for lv in LEVELS]
        levels += [float(mean(j.implementation[lv].score for j in judged)) for lv in LEVELS]
        return [len(judged), mean(j.js_design for j in judged), mean(j.js_impl for j in judged), *levels]

    note = "From the sessions' judgement events (the latest per session); empty where none was judged."
    return Table("judge", "JSdesign and JSimpl per level", columns, _per_model(records, columns, row), note)


def ablation_table(records: list[SessionRecord], baseline: Baseline | None = None) -> Table:
    """Per model, each condition against unguided: correctness, Sperf and its ratio to unguided, judge means."""
    columns = ["model", "condition", "correct_rate", "sperf", "sperf_vs_unguided", "js_design", "js_impl"]
    table = Table("ablation", "Per-level ablation (vs unguided and all)", columns)
    for model in models_of(records):
        unguided = sperf_of(_group(records, model, "unguided"), baseline)
        for condition in conditions_of(records):
            group = _group(records, model, condition)
            if not group:
                continue
            value = sperf_of(group, baseline)
            ratio = value / unguided if isinstance(value, float) and isinstance(unguided, float) else None
            judged = [r.judgement for r in group if r.judgement is not None]
            table.rows.append([model, condition, sum(r.correct for r in group) / len(group), value, ratio,
                               mean(j.js_design for j in judged) if judged else None,
                               mean(j.js_impl for j in judged) if judged else None])  # fmt: skip
    return table


def turns_table(records: list[SessionRecord]) -> Table:
    def row(group: list[SessionRecord]) -> list[Cell]:
        turns = [r.first_correct_turn for r in group if r.first_correct_turn is not None]
        return [len(turns), float(mean(turns)) if turns else None, float(median(turns)) if turns else None]

    columns = ["model", "condition", "correct_sessions", "mean_turns", "median_turns"]
    return Table("turns", "Turns to the first correct submission", columns, _per_model(records, columns, row))


def tokens_table(records: list[SessionRecord]) -> Table:
    def row(group: list[SessionRecord]) -> list[Cell]:
        costs = [r.cost for r in group if r.cost is not None]
        tokens = [sum(r.usage.get(name, 0) for r in group) for name in USAGE_FIELDS]
        cost = sum(costs) if costs and len(costs) == len(group) else None
        return [len(group), *tokens, cost, sum(r.discarded_responses for r in group)]

    columns = ["model", "condition", "sessions", *USAGE_FIELDS, "cost_usd", "discarded_responses"]
    note = (
        "Cache reads and writes apart from input; cost empty where a model has no known price. Responses of "
        "turns cut by a kill and discarded on resume are not in the sums (counted in discarded_responses)."
    )
    return Table("tokens", "Tokens and cost", columns, _per_model(records, columns, row), note)


def all_tables(records: list[SessionRecord], baseline: Baseline | None = None, against: str = "reference"
               ) -> list[Table]:  # fmt: skip
    return [
        correctness_table(records),
        sperf_table(records, baseline, against),
        all_correct_table(records, baseline),
        judge_table(records),
        ablation_table(records, baseline),
        turns_table(records),
        tokens_table(records),
    ]
