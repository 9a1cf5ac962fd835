"""Record the demo sessions in one command: on two tasks where guidance matters (rmsnorm_residual, memory-bound;
sliding_window_max, where L1 changes the algorithm) an unguided and a guided (L1+L2+L3) scripted session each, and
one session a person tunes by hand (benchmarks/human_demo.py): five sessions, one after another.

The scripted ones run as `workbench run TASK --provider scripted --script S` does (that command, in a child process),
with the scripts benchmarks/demo_scripts.py writes from the ladders. Everything is recorded into a new folder beside
OUT; OUT is replaced by it only when every session ended, submitted a correct solution and no tool call failed (and,
in cuda mode, timed a correct eval). Otherwise OUT is left as it was and the recordings stay for a look. A table of
the sessions is printed either way.

    python benchmarks/record_demos.py --mode cuda --out sessions/examples      on the H200: the committed demos
    python benchmarks/record_demos.py --mode interpret --out /tmp/demos        a rehearsal on the CPU (untimed)

Exit status: 0 OUT replaced, 1 a session fell short (OUT untouched), 2 bad usage.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import human_demo  # noqa: E402
from demo_scripts import SCRIPTS, STORIES  # noqa: E402

from workbench.session.events import Error, EvalResult, SessionEnd, Submission, ToolResult  # noqa: E402
from workbench.session.service import HUMAN, Session  # noqa: E402
from workbench.session.store import detect_session_mode  # noqa: E402

EXIT_OK, EXIT_SHORT, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class Demo:
    task: str
    condition: str  # unguided, guided (L1+L2+L3) or human
    script: Path | None = None  # a scripted demo's script
    steps: tuple[human_demo.Step, ...] = ()  # what the person does in a human one


def demos() -> list[Demo]:
    """The five demos, in the order they are recorded."""
    scripted = [Demo(story.task, condition, SCRIPTS / f"{story.task}_{condition}.json") for story in STORIES
                for condition in ("unguided", "guided")]  # fmt: skip
    return [*scripted, Demo(human_demo.TASK, HUMAN, steps=tuple(human_demo.steps()))]


@dataclass(frozen=True)
class Recorded:
    demo: Demo
    folder: Path | None  # None: no session was made
    problems: tuple[str, ...]


def record_one(demo: Demo, mode: str, into: Path) -> Path | None:
    """One demo session, made in `into`; its folder (None when none was made)."""
    if demo.condition == HUMAN:
        return human_demo.drive(demo.task, list(demo.steps), mode, into)
    assert demo.script is not None, f"the {demo.condition} demo on {demo.task} has no script"
    before = set(into.iterdir())
    condition = ["--guided", "all"] if demo.condition == "guided" else ["--unguided"]
    argv = [sys.executable, "-m", "workbench", "run", demo.task, *condition, "--provider", "scripted", "--script",
            str(demo.script), "--mode", mode, "--sessions", str(into)]  # fmt: skip
    subprocess.run(argv, check=False)  # its exit status is judged from the log, below
    made = sorted(set(into.iterdir()) - before)
    return made[0] if len(made) == 1 else None


def problems_of(demo: Demo, folder: Path | None, mode: str) -> list[str]:
    """Why a recorded session cannot be a demo; empty when it can."""
    if folder is None:
        return ["no session was made"]
    record = Session.open(folder)
    state, events = record.state, record.effective
    found = []
    if (record.start.provider == HUMAN) != (demo.condition == HUMAN):
        found.append(f"provider {record.start.provider} for a {demo.condition} demo")
    if state.end is None:
        found.append("it did not end")
    elif state.end.reason != "submitted":
        found.append(f"it ended {state.end.reason}, not submitted")
    if not state.correct_submissions:
        found.append("no correct submission")
    found += [f"turn {e.turn}: {e.name} failed: {e.text.strip()[:120]}" for e in events
              if isinstance(e, ToolResult) and e.is_error]  # fmt: skip
    found += [f"turn {e.turn}: error: {e.message}" for e in events if isinstance(e, Error)]
    if mode == "cuda" and state.best_speedup is None:
        found.append("no correct eval was timed")
    return found


def record_all(demos: Sequence[Demo], mode: str, out: Path) -> list[Recorded]:
    """Record every demo into a new folder beside `out`; replace `out` with it only if none has a problem."""
    staging = out.with_name(f".{out.name}.recording-{time.strftime('%Y%m%d-%H%M%S')}")
    staging.mkdir(parents=True)
    results = []
    for demo in demos:
        print(f"== {demo.task} {demo.condition}", flush=True)
        try:
            folder = record_one(demo, mode, staging)
        except Exception as exc:  # one demo's failure is reported in the table; the others still run
            folder, problems = None, [f"{type(exc).__name__}: {exc}"]
        else:
            problems = problems_of(demo, folder, mode)
        results.append(Recorded(demo, folder, tuple(problems)))
    results = _same_as_unguided(results)
    if any(r.problems for r in results):
        print(f"\n{out} left as it was; the recordings are in {staging}")
        return results
    _swap(staging, out)
    return [Recorded(r.demo, out / r.folder.name if r.folder else None, r.problems) for r in results]


def _same_as_unguided(results: list[Recorded]) -> list[Recorded]:
    """A guided demo that ends on the unguided one's solution.py tells no story (Compare: "the same in A and B")."""
    final = {(r.demo.task, r.demo.condition): Session.open(r.folder).state.solution for r in results
             if r.folder is not None and not r.problems}  # fmt: skip
    checked = []
    for r in results:
        unguided = final.get((r.demo.task, "unguided"))
        if r.demo.condition == "guided" and unguided is not None and final.get((r.demo.task, "guided")) == unguided:
            r = Recorded(r.demo, r.folder, (*r.problems, "its solution.py is the unguided demo's"))
        checked.append(r)
    return checked


def _swap(staging: Path, out: Path) -> None:
    """`out` becomes the new recordings; the old one is set aside first and removed only once the new one is in."""
    old = out.with_name(f".{out.name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}")
    if out.exists():
        out.rename(old)
    staging.rename(out)
    if old.exists():
        shutil.rmtree(old)
    print(f"\n{out} now holds the {len(list(out.iterdir()))} recorded sessions")


def table(results: Sequence[Recorded], mode: str) -> str:
    """One line a session: session, task, condition, turns, evals, best correct speedup (untimed on the CPU)."""
    rows = [("session", "task", "condition", "turns", "evals", "best speedup")]
    for r in results:
        turns = evals = best = "-"
        if r.folder is not None and (r.folder / "events.jsonl").is_file():
            record = Session.open(r.folder)
            end = next((e for e in reversed(record.effective) if isinstance(e, SessionEnd)), None)
            turns = str(end.turns) if end else "-"
            evals = str(sum(isinstance(e, (EvalResult, Submission)) for e in record.effective))
            speedup = record.state.best_speedup
            best = "untimed" if mode == "interpret" else (f"{speedup:.2f}x" if speedup else "-")
        name = r.folder.name if r.folder else "(none)"
        rows.append((name, r.demo.task, r.demo.condition, turns, evals, best))
        rows += [("", "", f"  problem: {p}", "", "", "") for p in r.problems]
    widths = [max(len(row[i]) for row in rows if not row[2].startswith("  problem")) for i in range(6)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("cuda", "interpret"), required=True, help="how the evals run")
    parser.add_argument("--out", type=Path, required=True, help="the folder the demos replace (sessions/examples)")
    args = parser.parse_args(argv)
    out: Path = args.out
    if out.name in ("", ".", ".."):
        print(f"record_demos: --out names a folder to replace, not {str(out)!r}", file=sys.stderr)
        return EXIT_USAGE
    if out.exists() and not out.is_dir():
        print(f"record_demos: --out {out} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    if args.mode == "cuda" and detect_session_mode() != "cuda":
        print("record_demos: no CUDA GPU here; --mode cuda records on a GPU (--mode interpret rehearses on the CPU)",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    results = record_all(demos(), args.mode, out)
    print(table(results, args.mode))
    return EXIT_SHORT if any(r.problems for r in results) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
