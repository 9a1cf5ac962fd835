"""Evaluates every expert (and every design-ladder rung, and optionally every wrong solution) on the
GPU, records the run as `OUT/suite.json` (what `workbench suite` reads) and prints the tables.

    python benchmarks/suite_gpu.py --out DIR [--tasks T ...] [--jobs N] [--budget S]
                                   [--no-ladders | --no-experts] [--rungs R ...] [--wrong | --only-wrong]
                                   [--skip-done SUITE_JSON ...]
    python benchmarks/suite_gpu.py --out DIR --together [--peers MANIFEST --peer-root DIR] [--tasks T ...]
    python benchmarks/suite_gpu.py --out DIR --merge SUITE_JSON ...

With --together each task is one eval of its expert and its ladder's rungs (and, with --peers, the task's
production peers from a manifest kept outside the project): every one of them checked on its own, and all timed in
alternating batches with the reference and with each other over the same input sets, so a ladder step or an
expert / peer ratio is read under one set of conditions. Each result is also written to OUT/evals/<task>__<label>.json
(the layout benchmarks/record_peers.py reads). A group that runs out of GPU memory while other groups hold theirs (each
group holds its own input sets) is not recorded then: it runs again alone after the others, and that is its record.

Several evals run at once (--jobs): they compile and check correctness side by side, while the
harness's GPU lock lets only one of them time at a moment, with nothing else of ours on the GPU.
suite.json is rewritten after every eval, so a run cut short keeps everything it finished; the next call
with `--skip-done` and the earlier suite.json files goes on with the evals they lack (or got wrong), and
`--merge` joins the parts into one run document.

It exits 1 when any eval got the wrong verdict (an expert or a rung not correct, a wrong solution accepted or
rejected for another reason than its `# expect:` line), after listing them: a GPU check that cannot fail
proves nothing.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench.harness import EvalOptions, evaluate  # noqa: E402
from workbench.harness.result import EvalResult  # noqa: E402
from workbench.harness.runner import evaluate_together  # noqa: E402
from workbench.harness.verdict import expected_verdict, verdicts  # noqa: E402
from workbench.jsonsafe import json_safe  # noqa: E402
from workbench.suite import (  # noqa: E402
    add_eval,
    evals_done,
    load_run,
    merge_documents,
    new_run_document,
    render_markdown,
    workload_rows,
)
from workbench.tasks import LADDER_RUNGS, load_task, project_root, task_names  # noqa: E402


@dataclass(frozen=True)
class Verdict:
    """One eval's verdict beside the one it should get: "correct" for an expert or a rung, the `# expect:`
    verdict for a wrong solution."""

    label: str  # task/rung or task/file
    expected: str
    found: tuple[str, ...]
    ok: bool


def judge(label: str, expected: str | None, result: EvalResult) -> Verdict:
    """Whether `result` is the verdict expected: a correct eval for "correct"; otherwise an incorrect one that
    gives the expected reason (among others). A wrong solution without an `# expect:` line is never right."""
    found = verdicts(result)
    if expected == "correct":
        ok = result.correct
    else:
        ok = expected is not None and expected in found and not result.correct
    return Verdict(label, expected or "no '# expect:' line", tuple(sorted(found)), ok)


def exit_status(judged: Sequence[Verdict]) -> int:
    """1, after naming each of them, when any verdict is wrong; else 0."""
    wrong = [v for v in judged if not v.ok]
    for v in wrong:
        print(f"WRONG VERDICT {v.label}: expected {v.expected}, got {', '.join(v.found)}", file=sys.stderr)
    if wrong:
        print(f"{len(wrong)} of {len(judged)} evals got the wrong verdict", file=sys.stderr)
    return 1 if wrong else 0


def wrong_table(names: list[str], jobs: int) -> tuple[list[str], list[Verdict]]:
    """Every wrong solution of these tasks evaluated: the table's lines and the verdicts."""
    paths = [p for name in names for p in sorted((project_root() / "guidance" / name / "wrong").glob("*.py"))]

    def one(path: Path) -> Verdict:
        task = load_task(path.parent.parent.name)
        result = evaluate(task, path, EvalOptions(mode="cuda", seeds=2, timing={"budget_s": 0.5}))
        verdict = judge(f"{task.name}/{path.name}", expected_verdict(path), result)
        print(f"wrong {verdict.label}: expected {verdict.expected}, got {list(verdict.found)}", flush=True)
        return verdict

    with ThreadPoolExecutor(jobs) as pool:
        judged = list(pool.map(one, paths))
    rows = [f"| {v.label} | {v.expected} | {', '.join(v.found)} | {'yes' if v.ok else 'NO'} |" for v in judged]
    return ["| wrong solution | expected | verdict | ok |", "| --- | --- | --- | --- |", *rows], judged


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", nargs="+")
    parser.add_argument("--jobs", type=int, default=4, help="evals at once (timing is still one at a time)")
    parser.add_argument("--budget", type=float, default=1.0, help="timing seconds per function and workload")
    parser.add_argument("--no-ladders", action="store_true", help="only the experts")
    no_experts_help = "only the ladders' lower rungs (merge the run with one that has the experts)"
    parser.add_argument("--no-experts", action="store_true", help=no_experts_help)
    parser.add_argument("--rungs", nargs="+", choices=LADDER_RUNGS, help="only these rungs of the ladders")
    parser.add_argument("--wrong", action="store_true", help="also every wrong solution (to wrong.md)")
    parser.add_argument("--only-wrong", action="store_true", help="only the wrong solutions (to wrong.md)")
    skip_help = "leave out the evals these earlier runs already did correctly (a run split over several calls)"
    parser.add_argument("--skip-done", nargs="+", type=Path, default=[], metavar="SUITE_JSON", help=skip_help)
    together_help = "one eval per task: expert, rungs (and --peers) timed in alternation with each other"
    parser.add_argument("--together", action="store_true", help=together_help)
    parser.add_argument("--peers", type=Path, help="with --together: a peers manifest (task, peer, wrapper, ...)")
    parser.add_argument(
        "--peer-root", type=Path, default=Path.cwd(), help="what the manifest's wrapper paths are under"
    )
    merge_help = "measure nothing: merge these runs (later ones win) into OUT/suite.json and suite.md"
    parser.add_argument("--merge", nargs="+", type=Path, metavar="SUITE_JSON", help=merge_help)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.merge:
        merged = merge_documents([json.loads(p.read_text()) for p in args.merge])
        (args.out / "suite.json").write_text(json.dumps(merged, indent=1))
        write_tables(args.out, [load_task(n) for n in task_names()])
        return 0
    names = args.tasks or task_names()
    if args.together:
        judged = [] if args.only_wrong else run_together(args, names, argv)
    else:
        judged = [] if args.only_wrong else run_suite(args, names, argv)
    if args.wrong or args.only_wrong:
        lines, wrong = wrong_table(names, args.jobs)
        (args.out / "wrong.md").write_text("\n".join(lines) + "\n")
        print("\n".join(lines))
        judged += wrong
    return exit_status(judged)


def run_suite(args: argparse.Namespace, names: list[str], argv: Sequence[str] | None = None) -> list[Verdict]:
    """Every expert and rung asked for, evaluated and recorded; their verdicts (none for evals skipped as done)."""
    command = "python benchmarks/suite_gpu.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    doc = new_run_document(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), command)
    suite_json, lock = args.out / "suite.json", threading.Lock()
    tasks = [load_task(name) for name in names]
    # every expert first, then the ladders' lower rungs: a run cut short has the suite's table whole
    jobs = [] if args.no_experts else [(task, "expert", task.expert_path) for task in tasks]
    if not args.no_ladders:
        wanted = set(args.rungs or LADDER_RUNGS)
        jobs += [(task, r, p) for task in tasks for r, p in task.ladder if r in wanted]
    done = evals_done([json.loads(p.read_text()) for p in args.skip_done])
    jobs = [job for job in jobs if (job[0].name, job[1]) not in done]
    if done:
        print(f"{len(done)} evals already done in {', '.join(map(str, args.skip_done))}: {len(jobs)} to go", flush=True)
    if not jobs:
        return []  # nothing measured: no run document, which would otherwise count as the latest run
    judged: list[Verdict] = []

    def one(job: tuple) -> None:
        task, rung, path = job
        started = time.perf_counter()
        # A rung is compared with its expert, whose eval times the reference: no need to time it again.
        timing = {"budget_s": args.budget, "reference": rung == "expert"}
        result = evaluate(task, path, EvalOptions(mode="cuda", seeds=3 if rung == "expert" else 2, timing=timing))
        with lock:
            add_eval(doc, task.name, rung, json_safe(result.to_dict()))
            suite_json.write_text(json.dumps(doc, indent=1))
            judged.append(judge(f"{task.name}/{rung}", "correct", result))
        state = "correct" if result.correct else "NOT CORRECT"
        print(f"{task.name}/{rung}: {state} in {time.perf_counter() - started:.0f} s; "
              + "; ".join(w.summary() for w in result.workloads) + (f" error: {result.error}" if result.error else ""),
              flush=True)  # fmt: skip

    with ThreadPoolExecutor(args.jobs) as pool:
        for future in [pool.submit(one, job) for job in jobs]:
            future.result()
    write_tables(args.out, tasks)
    return judged


def peers_of(manifest: Path | None, root: Path) -> dict[str, list[tuple[str, Path]]]:
    """task -> [(peer name, wrapper path)] from a peers manifest (a JSON list of entries with task, peer, wrapper)."""
    if manifest is None:
        return {}
    found: dict[str, list[tuple[str, Path]]] = {}
    for entry in json.loads(manifest.read_text()):
        wrapper = Path(entry["wrapper"])
        found.setdefault(entry["task"], []).append(
            (entry["peer"], wrapper if wrapper.is_absolute() else root / wrapper)
        )
    return found


def run_together(args: argparse.Namespace, names: list[str], argv: Sequence[str] | None = None) -> list[Verdict]:
    """Per task one eval of the expert, the rungs asked for and the task's peers, all timed together; recorded like
    run_suite's evals (the peers only under OUT/evals/, for record_peers.py); the verdicts of experts and rungs."""
    command = "python benchmarks/suite_gpu.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    doc = new_run_document(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), command)
    suite_json, lock = args.out / "suite.json", threading.Lock()
    (args.out / "evals").mkdir(exist_ok=True)
    tasks = [load_task(name) for name in names]
    peers = peers_of(args.peers, args.peer_root)
    wanted = set(args.rungs or LADDER_RUNGS) if not args.no_ladders else set()
    judged: list[Verdict] = []

    ran_out: list[Any] = []  # tasks whose group ran out of GPU memory beside other groups: run again alone

    def one(task: Any, alone: bool) -> None:
        started = time.perf_counter()
        labelled = [("expert", task.expert_path)] if not args.no_experts else []
        labelled += [(rung, path) for rung, path in task.ladder if rung in wanted]
        labelled += [(f"peer:{name}", path) for name, path in peers.get(task.name, [])]
        options = EvalOptions(mode="cuda", seeds=2, timing={"budget_s": args.budget})
        try:
            results = evaluate_together(task, [path for _, path in labelled], options)
        except Exception as exc:  # one task's failure is its record, never the run's end
            print(f"{task.name}: the eval failed: {type(exc).__name__}: {exc}", flush=True)
            with lock:
                judged.append(Verdict(task.name, "correct", (f"error: {exc}",), False))
            return
        if not alone and any(ran_out_of_gpu_memory(result) for result in results):
            # each group holds its own input sets: several large groups at once can fill the GPU, which says
            # nothing about the solutions; the group is measured again with the GPU to itself
            print(f"{task.name}: ran out of GPU memory beside other groups; it runs again alone", flush=True)
            with lock:
                ran_out.append(task)
            return
        with lock:
            for (label, _), result in zip(labelled, results):
                as_dict = json_safe(result.to_dict())
                stem = label.removeprefix("peer:")
                (args.out / "evals" / f"{task.name}__{stem}.json").write_text(json.dumps(as_dict, indent=1))
                if not label.startswith("peer:"):
                    add_eval(doc, task.name, label, as_dict)
                    judged.append(judge(f"{task.name}/{label}", "correct", result))
            suite_json.write_text(json.dumps(doc, indent=1))
        for (label, _), result in zip(labelled, results):
            state = "correct" if result.correct else "NOT CORRECT"
            print(f"{task.name}/{label}: {state}; " + "; ".join(w.summary() for w in result.workloads)
                  + (f" error: {result.error}" if result.error else ""), flush=True)  # fmt: skip
        print(f"{task.name}: {len(labelled)} solutions together in {time.perf_counter() - started:.0f} s", flush=True)

    with ThreadPoolExecutor(args.jobs) as pool:
        for future in [pool.submit(one, task, args.jobs == 1) for task in tasks]:
            future.result()
    for task in ran_out:
        one(task, True)
    write_tables(args.out, tasks)
    return judged


def ran_out_of_gpu_memory(result: EvalResult) -> bool:
    """Whether any part of an eval failed with CUDA's out-of-memory error."""
    texts = [result.error or ""] + [w.error or "" for w in result.workloads]
    return any("OutOfMemoryError" in t or "CUDA out of memory" in t for t in texts)


def write_tables(out: Path, tasks: list) -> None:
    run = load_run(out / "suite.json")
    table = render_markdown(run, workload_rows(run, tasks))
    (out / "suite.md").write_text(table)
    print(table)


if __name__ == "__main__":
    sys.exit(main())
