"""`workbench report BENCH_DIR`: the paper's tables from the sessions' logs, as Markdown, CSV and PNG."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from workbench.bench.plan import PLAN_FILE, BenchUsageError, load_plan
from workbench.bench.plots import write_plots
from workbench.bench.records import SessionRecord, first_correct_latencies, read_records
from workbench.bench.sessions import session_status
from workbench.bench.spend import stopped_by_cap
from workbench.bench.tables import Cell, Table, all_tables
from workbench.score import INCORRECT_SPEEDUP, Baseline, ScoreError, load_baseline


@dataclass
class Report:
    records: list[SessionRecord]
    tables: list[Table]
    against: str
    unfinished: list[str]  # planned sessions without an end
    capped: list[str] = field(default_factory=list)  # of them, those the bench's cost cap stopped

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)


def resolve_baseline(path: Path | None) -> tuple[Baseline | None, str]:
    """None (the reference); a baseline file of latencies; or a baseline run (a bench or sessions folder),
    whose first correct submissions give the latencies."""
    if path is None:
        return None, "the reference"
    if path.is_dir():
        records = read_records(path)
        if not records:
            raise BenchUsageError(f"--baseline {path}: no sessions there")
        return first_correct_latencies(records), f"the first correct submissions of {path}"
    try:
        return load_baseline(path), f"baseline {path}"
    except (OSError, json.JSONDecodeError, ScoreError) as exc:
        raise BenchUsageError(f"--baseline {path}: {exc}") from None


def build_report(bench_dir: Path, baseline_path: Path | None = None) -> Report:
    sessions = bench_dir / "sessions" if (bench_dir / PLAN_FILE).exists() else bench_dir
    records = read_records(sessions)
    if not records:
        raise BenchUsageError(f"{bench_dir}: no session logs")
    baseline, against = resolve_baseline(baseline_path)
    unfinished = []
    if (bench_dir / PLAN_FILE).exists():
        plan = load_plan(bench_dir)
        unfinished = [s.key for s in plan.sessions() if session_status(sessions / s.key).state != "finished"]
    try:
        tables = all_tables(records, baseline, against)
    except ScoreError as exc:
        raise BenchUsageError(str(exc)) from None
    capped = [key for key in unfinished if key in stopped_by_cap(bench_dir)]
    return Report(records, tables, against, unfinished, capped)


def write_report(report: Report, out: Path) -> list[Path]:
    """report.md, one CSV per table and the plots; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in report.tables:
        path = out / f"{table.name}.csv"
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(table.columns)
            writer.writerows([["" if v is None else v for v in row] for row in table.rows])
        written.append(path)
    plots, why_not = write_plots(report.table("sperf"), report.table("judge"), out)
    (out / "report.md").write_text(markdown(report, [p.name for p in plots], why_not))
    return [out / "report.md", *written, *plots]


def markdown(report: Report, plots: list[str], why_no_plots: str | None) -> str:
    modes = sorted({r.mode for r in report.records})
    lines = [f"# Bench report\n\n{len(report.records)} sessions; mode {', '.join(modes)}; speedups against "
             f"{report.against}."]  # fmt: skip
    if "interpret" in modes:
        lines.append("Sessions run in the interpreter have no timing: their speedups read `untimed`.")
    lines += scoring_lines(report.records)
    if report.unfinished:
        lines.append(f"Unfinished planned sessions ({len(report.unfinished)}): {', '.join(report.unfinished)}.")
    if report.capped:
        lines.append(f"Of them, stopped by the bench's cost cap (a higher --max-bench-cost resumes them): "
                     f"{', '.join(report.capped)}.")  # fmt: skip
    for table in report.tables:
        lines += ["", f"## {table.title}", ""]
        if table.note:
            lines += [table.note, ""]
        if not table.rows:
            lines.append("(none)")
            continue
        lines.append("| " + " | ".join(table.columns) + " |")
        lines.append("|" + "---|" * len(table.columns))
        lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in table.rows]
    lines += judge_flag_lines(report.records)
    lines += ["", "## Plots", ""]
    lines += [f"![{name}]({name})" for name in plots] or [why_no_plots or "(nothing to plot)"]
    return "\n".join(lines) + "\n"


def scoring_lines(records: list[SessionRecord]) -> list[str]:
    """Which submission counts (each session's recorded rule), and the sessions scored on an automatic submission."""
    rules = {"final": "the last submission (rule final, the paper's)", "best": "the best correct one (rule best)"}
    counts = [f"{rules.get(rule, rule)} in {sum(r.scoring == rule for r in records)} sessions"
              for rule in sorted({r.scoring for r in records})]  # fmt: skip
    lines = [f"Which submission counts: {'; '.join(counts)}; an incorrect one scores {INCORRECT_SPEEDUP} as a speedup."]
    auto = [r.folder.parent.name if r.seed is not None else r.folder.name for r in records if r.auto_submitted]
    if auto:
        lines.append(f"Scored on an automatic submission ({len(auto)}: no correct submission of their own, their best "
                     f"correct evaluation submitted by auto): {', '.join(auto)}.")  # fmt: skip
    return lines


def judge_flag_lines(records: list[SessionRecord]) -> list[str]:
    """The section naming every judged session whose files hold text addressed to the judge (where, why, what)."""
    judged = [r for r in records if r.judgement is not None]
    if not judged:
        return []
    lines = ["", "## Text addressed to the judge", ""]
    flagged = [(r.folder.name, flag) for r in records if r.judgement is not None for flag in r.judgement.flags]
    if not flagged:
        return lines + [f"None in the {len(judged)} judged sessions' files."]
    lines.append("Flagged in the judged files (never obeyed by the judge, never counted as evidence):")
    lines += [f"- {name} {flag.where()} ({flag.why}): {json.dumps(flag.quote, ensure_ascii=False)}"
              for name, flag in flagged]  # fmt: skip
    return lines


def _cell(value: Cell) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
