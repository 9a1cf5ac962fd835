"""The suite report: per task and workload, the reference and expert latency, the speedup, the
fraction of speed-of-light and the design ladder's steps, from a recorded GPU run.

A run is a `suite.json` written by `benchmarks/suite_gpu.py` (kept under docs/runs/<date>-<device>/):
where and when it was measured, the ceilings behind the SOL figures, the command, and every eval
result in full. The report never measures anything itself."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.harness.result import EvalResult, WorkloadResult, geomean
from workbench.jsonsafe import finite_or_none
from workbench.peers import Peers
from workbench.speed_of_light import ceilings_text
from workbench.tasks import LADDER_RUNGS, Task, project_root

SUITE_VERSION = 1
RUNS_FOLDER = Path("docs") / "runs"


class SuiteRunError(ValueError):
    """A suite.json that is missing or malformed: one line, naming the file."""


@dataclass
class SuiteRun:
    path: Path
    measured_at: str
    device: dict[str, Any]
    ceilings: dict[str, Any] | None
    command: str
    results: dict[str, dict[str, EvalResult]] = field(default_factory=dict)  # task -> rung -> result
    # a merged run: each source run's {"measured_at", "command"}, and which run each eval came from
    sources: list[dict[str, Any]] = field(default_factory=list)
    source_of: dict[tuple[str, str], int] = field(default_factory=dict)

    def where(self, task: str | None = None) -> str:
        """The device and when: the run's time, or, given a task of a merged run, when that task's evals were
        measured (a merged run's own time is its latest source's, which may be hours after this task's)."""
        d = self.device
        return (
            f"{d.get('name', '?')} (driver {d.get('driver', '?')}, torch {d.get('torch', '?')}, "
            f"triton {d.get('triton', '?')}), {' and '.join(self.measured_at_of(task)) if task else self.measured_at}"
        )

    def measured_at_of(self, task: str) -> list[str]:
        """The times of the source runs this task's evals came from (the run's own time when it is no merge)."""
        times = {
            self.sources[i]["measured_at"]
            for (t, _), i in self.source_of.items()
            if t == task and 0 <= i < len(self.sources) and "measured_at" in self.sources[i]
        }
        return sorted(times) or [self.measured_at]


def new_run_document(measured_at: str, command: str) -> dict[str, Any]:
    return {"version": SUITE_VERSION, "measured_at": measured_at, "command": command, "device": {}, "evals": []}


def add_eval(doc: dict[str, Any], task: str, rung: str, result: dict[str, Any]) -> None:
    """Record one eval result (as `EvalResult.to_dict()`, JSON-safe) in a run document."""
    doc["evals"] = [e for e in doc["evals"] if (e["task"], e["rung"]) != (task, rung)]
    doc["evals"].append({"task": task, "rung": rung, "result": result})
    if result.get("device") and not doc["device"]:
        doc["device"] = result["device"]
    if result.get("ceilings") and not doc.get("ceilings"):
        doc["ceilings"] = result["ceilings"]


def evals_done(docs: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The (task, rung) pairs that some run already evaluated correctly, so that a suite run split over several
    device calls can go on where the last one stopped; an eval that was wrong or cut short is done again."""
    return {(e["task"], e["rung"]) for doc in docs for e in doc["evals"] if e["result"].get("correct")}


def merge_documents(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """One document from several runs on one device; a later run's eval of a (task, rung) replaces an
    earlier one. Each eval keeps the index of its source run, so the report says when it was measured."""
    merged = new_run_document(max(d["measured_at"] for d in docs), "several runs (see sources)")
    merged["sources"] = []
    for doc in docs:
        first = len(merged["sources"])
        if doc.get("sources"):  # an earlier merge: keep its runs, not "several runs"
            merged["sources"] += doc["sources"]
        else:
            merged["sources"].append(
                {"measured_at": doc["measured_at"], "command": doc["command"], "ceilings": doc.get("ceilings")}
            )
        for entry in doc["evals"]:
            add_eval(merged, entry["task"], entry["rung"], entry["result"])
            merged["evals"][-1]["source"] = first + entry.get("source", 0)
    return merged


def latest_run(root: Path, name: str = "suite.json") -> Path | None:
    """The most recently measured recorded file `name` (a suite.json, a peers.json) under docs/runs/; one that
    cannot be read as a JSON object is passed over."""
    found = []
    for path in (root / RUNS_FOLDER).glob(f"*/{name}"):
        try:
            found.append((json.loads(path.read_text()).get("measured_at", ""), path))
        except (OSError, json.JSONDecodeError, AttributeError):
            continue
    return max(found)[1] if found else None


def load_run(path: Path) -> SuiteRun:
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise SuiteRunError(f"no suite run at {path}") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise SuiteRunError(f"{path}: not a suite run ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("evals"), list):
        raise SuiteRunError(f"{path}: not a suite run (no 'evals' list)")
    if doc.get("version", 0) > SUITE_VERSION:
        raise SuiteRunError(f"{path}: suite run version {doc['version']} is newer than this workbench reads")
    run = SuiteRun(path, str(doc.get("measured_at", "?")), doc.get("device") or {}, doc.get("ceilings"),
                   str(doc.get("command", "?")))  # fmt: skip
    run.sources = list(doc.get("sources") or [])
    for entry in doc["evals"]:
        try:
            result = EvalResult.from_dict(entry["result"])
            run.results.setdefault(entry["task"], {})[entry["rung"]] = result
        except (KeyError, TypeError) as exc:
            raise SuiteRunError(f"{path}: malformed eval entry ({exc})") from None
        if "source" in entry:
            run.source_of[(entry["task"], entry["rung"])] = int(entry["source"])
    return run


@dataclass
class WorkloadRow:
    task: str
    workload: str
    correct: bool
    reference_ms: float | None
    expert_ms: float | None
    speedup: float | None
    sol_fraction: float | None
    error: str | None = None
    sol_binding: str | None = None  # the resource SOL is bound by (None in runs before the SOL model named it)
    ladder_ms: dict[str, float] = field(default_factory=dict)  # rung -> median latency
    best_peer: str | None = None  # the fastest correct production peer on this workload (peers.py), if recorded
    best_peer_ms: float | None = None
    peer_run_expert_ms: float | None = None  # the expert in the peers' run: the peer's ratio is taken against it
    expert_err_ms: float | None = None  # the standard error of the expert's mean latency (None where not finite)
    expert_samples: int | None = None

    @property
    def uncertain(self) -> bool:
        """The expert's mean latency has a standard error over UNCERTAIN of its median: some samples were disturbed
        (the median shown resists a few unless the samples are few)."""
        return bool(
            self.expert_ms and self.expert_err_ms is not None and self.expert_err_ms > UNCERTAIN * self.expert_ms
        )

    def ladder_chain(self, rungs: Sequence[str] = LADDER_RUNGS) -> list[float | None]:
        """The latencies of these rungs, lowest first, then the expert's (None where a rung is missing)."""
        return [self.ladder_ms.get(r) for r in rungs] + [self.expert_ms]


UNCERTAIN = 0.05  # a standard error above this fraction of the median marks a latency in the report
SOL_LOW = 0.4  # the fraction under which the suite counts a workload as far from SOL (issue 17's aim: none)


def ladder_steps(chain: list[float | None]) -> list[float | None]:
    """Each rung's latency over the next one's: over 1, the level above made the kernel faster."""
    return [a / b if a and b else None for a, b in zip(chain, chain[1:])]


def _timed(w: WorkloadResult) -> bool:
    return bool(w.correct and w.latency_ms)


def workload_rows(run: SuiteRun, tasks: list[Task], peers: Peers | None = None) -> list[WorkloadRow]:
    """One row per timed workload of each task, in the order of `tasks`; a task the run lacks gets
    a row saying so. With `peers`, each row names the fastest correct production peer."""
    rows = []
    for task in tasks:
        rungs = run.results.get(task.name, {})
        expert = rungs.get("expert")
        if expert is None:
            rows.append(WorkloadRow(task.name, "-", False, None, None, None, None, "not in this run"))
            continue
        if expert.error and not expert.workloads:
            rows.append(WorkloadRow(task.name, "-", False, None, None, None, None, expert.error))
            continue
        ci_sized = {x.name for x in task.workloads if x.interpret}
        for w in expert.workloads:
            if w.name in ci_sized or (w.correct and not w.latency_ms):
                continue  # CI-sized workloads are checked but not timed on a GPU (an older run timed them)
            row = WorkloadRow(task.name, w.name, bool(w.correct), None, None, None, None, None)
            if _timed(w) and w.reference_ms:
                assert w.latency_ms
                row.reference_ms, row.expert_ms = w.reference_ms.median, w.latency_ms.median
                row.speedup, row.sol_fraction, row.sol_binding = w.speedup, w.sol_fraction, w.sol_binding
                row.expert_err_ms, row.expert_samples = finite_or_none(w.latency_ms.err), w.latency_ms.n
            else:
                row.error = f"{w.failure or 'incorrect'}: {w.error or ''}".strip()
            for rung, result in rungs.items():
                other = next((x for x in result.workloads if x.name == w.name), None)
                if rung != "expert" and other is not None and _timed(other):
                    assert other.latency_ms
                    row.ladder_ms[rung] = other.latency_ms.median
            best = peers.best(task.name, w.name) if peers is not None else None
            if best is not None:
                assert peers is not None
                row.best_peer, row.best_peer_ms = best.peer, best.latency_ms
                row.peer_run_expert_ms = peers.expert_ms.get((task.name, w.name))
            rows.append(row)
    return rows


def summary(rows: list[WorkloadRow]) -> dict[str, Any]:
    timed = [r for r in rows if r.speedup and r.sol_fraction]
    return {
        "workloads_timed": len(timed),
        "workloads_failed": sum(1 for r in rows if not r.correct),
        "speedup_geomean": geomean([r.speedup for r in timed if r.speedup]) if timed else None,
        "sol_fraction_geomean": geomean([r.sol_fraction for r in timed if r.sol_fraction]) if timed else None,
        "under_30pct_sol": [f"{r.task}/{r.workload}" for r in timed if r.sol_fraction and r.sol_fraction < 0.3],
        "under_40pct_sol": [f"{r.task}/{r.workload}" for r in timed if r.sol_fraction and r.sol_fraction < SOL_LOW],
        "uncertain": [f"{r.task}/{r.workload}" for r in timed if r.uncertain],
        "slower_than_reference": [f"{r.task}/{r.workload}" for r in timed if r.speedup and r.speedup <= 1.0],
    }


def _us(ms: float | None) -> str:
    return f"{ms * 1e3:.1f}" if ms is not None else ""


def _shown(path: Path) -> str:
    """A recorded file as the project names it (docs/runs/...) when it lies in the project, so a rendered table
    carries no machine's absolute path."""
    try:
        return str(path.resolve().relative_to(project_root()))
    except ValueError:
        return str(path)


def render_markdown(run: SuiteRun, rows: list[WorkloadRow], peers: Peers | None = None) -> str:
    """The experts' table (with the fastest production peer where one is recorded), then the ladder table (each
    rung's latency and its step over the rung below)."""
    lines = [f"Measured on {run.where()} with `{run.command}`.", ""]
    with_peers = peers is not None and any(r.best_peer for r in rows)
    if run.sources:
        lines += ["Runs merged here (a later run's eval of a task replaces an earlier one):", ""]
        for i, source in enumerate(run.sources):
            experts = {t for (t, rung), j in run.source_of.items() if j == i and rung == "expert"}
            rung_tasks = {t for (t, rung), j in run.source_of.items() if j == i and rung != "expert"}
            parts = [f"the experts of {len(experts)} task(s)"] if experts else []
            parts += [f"the ladder rungs of {len(rung_tasks)} task(s)"] if rung_tasks else []
            kept = ", ".join(parts) or "all replaced by later runs"
            ceilings = f" (SOL ceilings: {_ceilings(source['ceilings'])})" if source.get("ceilings") else ""
            lines.append(f"{i + 1}. {source['measured_at']}: `{source['command']}`: {kept}{ceilings}")
        lines.append("")
    if run.ceilings and not run.sources:
        method = run.ceilings.get("method", "?")
        lines += [f"SOL ceilings: {_ceilings(run.ceilings)}, measured in the same run ({method}).", ""]
    if with_peers:
        assert peers is not None
        lines += [f"Production peers (other projects' Triton kernels, timed through a wrapper kept outside this "
                  f"project): {_shown(peers.path)}, measured {peers.measured_at}; a peer's ratio is taken against the "
                  f"expert timed in the same run.", ""]  # fmt: skip
    peer_head, peer_rule = (" best peer us | expert / peer |", " ---: | --- |") if with_peers else ("", "")
    lines += [
        f"| task | workload | reference us | expert us | speedup | SOL fraction | SOL bound |{peer_head}",
        f"| --- | --- | ---: | ---: | ---: | ---: | --- |{peer_rule}",
    ]
    for r in rows:
        peer = ""
        if with_peers:
            expert = r.peer_run_expert_ms or r.expert_ms  # over 1: the peer is faster than the expert
            ratio = f"{expert / r.best_peer_ms:.2f}x ({r.best_peer})" if r.best_peer_ms and expert else ""
            peer = f" {_us(r.best_peer_ms)} | {ratio} |"
        if r.expert_ms is None:
            lines.append(f"| {r.task} | {r.workload} | | | FAILED: {_one_line(r.error)} | | |{peer}")
            continue
        expert_us = _us(r.expert_ms)
        if r.uncertain and r.expert_err_ms and r.expert_ms:
            expert_us += f" (±{r.expert_err_ms / r.expert_ms:.0%}, n {r.expert_samples})"
        lines.append(f"| {r.task} | {r.workload} | {_us(r.reference_ms)} | {expert_us} "
                     f"| {r.speedup:.2f} | {r.sol_fraction:.0%} | {r.sol_binding or '-'} |{peer}")  # fmt: skip
    s = summary(rows)
    if s["speedup_geomean"]:
        lines += ["", f"{s['workloads_timed']} workloads timed; geometric mean speedup {s['speedup_geomean']:.2f}x, "
                  f"SOL fraction {s['sol_fraction_geomean']:.1%}, {len(s['under_40pct_sol'])} under "
                  f"{SOL_LOW:.0%} of SOL."]  # fmt: skip
        if s["uncertain"]:
            lines.append(f"(±x%, n N): on {len(s['uncertain'])} workload(s) the standard error of the expert's mean "
                         f"latency is over {UNCERTAIN:.0%} of the median shown, over N samples: some samples were "
                         f"disturbed, and where N is small the median may be too.")  # fmt: skip
    laddered = [r for r in rows if r.ladder_ms and r.expert_ms]
    if laddered:
        header = " | ".join(f"{g} us" for g in LADDER_RUNGS) + " | expert us | " + " | ".join(_steps())
        lines += ["", f"| task | workload | {header} |", "| --- | --- |" + " ---: |" * (2 * len(LADDER_RUNGS) + 1)]
        for r in laddered:
            chain = r.ladder_chain()
            steps = [f"{step:.2f}x" if step else "" for step in ladder_steps(chain)]
            lines.append(f"| {r.task} | {r.workload} | " + " | ".join(_us(v) for v in chain) + " | "
                         + " | ".join(steps) + " |")  # fmt: skip
    return "\n".join(lines) + "\n"


def _steps() -> list[str]:
    names = [*LADDER_RUNGS, "expert"]
    return [f"{a}->{b}" for a, b in zip(names, names[1:])]


def _ceilings(c: dict[str, Any]) -> str:
    return ceilings_text(c)


def _one_line(text: str | None, limit: int = 160) -> str:
    """The line of an error that says what went wrong (a compile error's last line), table-safe."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    if lines and len(lines) > 1 and lines[0] not in line:
        line = f"{lines[0].rstrip(':')}: {line}"
    return line.replace("|", "\\|")[:limit]
