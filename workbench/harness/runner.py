"""The parent side of an eval: static checks here, everything else in the trusted checker process.

The parent never imports the solution and never touches the GPU. It draws the eval's seed, copies the solution into
a private eval folder (so the file that is scored is the file that ran, whatever the workspace does meanwhile), and
hands one spec line to a checker (docs/security.md): a warm one kept from an earlier eval of this process when there
is one. It reads results only from the checker's private pipe, and kills the checker (and with it the solution's
worker) on cancel or when the checker itself stops answering.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.harness import sandbox
from workbench.harness.checker_pool import CheckerLost, acquire
from workbench.harness.owned_tmp import owned_dir
from workbench.harness.result import DeviceInfo, EvalResult, StaticResult, Violation, WorkloadResult, workload_from_dict
from workbench.harness.spec import GPU_HELD, GPU_WAIT, EvalSpec, WorkloadSpec, draw_seed, group_to_json
from workbench.harness.static_checks import DEFAULT_FORBIDDEN_CALLS, check_source
from workbench.tasks import Task, Workload

EVAL_PREFIX = "workbench-eval-"  # an eval's private copy and work folder; a killed eval's is removed by a later one

# The agent's `evaluate` during iteration (one seed, this timing); `submit` keeps the defaults' full rigour.
QUICK_TIMING = {"budget_s": 0.25, "target_rel_err": 0.01, "warmup_s": 0.1}


class EvalUsageError(ValueError):
    """Bad input to an eval (missing solution, unknown workload, no workload for the mode)."""


@dataclass
class EvalOptions:
    mode: str | None = None  # "cuda" or "interpret"; None: cuda when a GPU is visible
    workloads: list[str] | None = None
    seeds: int = 3
    timeout_s: float = 300.0  # per workload, compile included
    startup_timeout_s: float = 180.0  # importing torch, triton and the solution
    timing: dict[str, Any] = field(default_factory=dict)
    cancel: threading.Event | None = None  # set it to stop the eval; the workload in flight is killed
    sandbox_dir: Path | None = None  # agent code: its workspace (the Triton cache lives there)
    seed: int | None = None  # None: drawn now; give a result's seed to draw the same inputs again
    hidden: bool = False  # also check the task's hidden workloads (submit does; evaluate does not)

    def __post_init__(self) -> None:
        if self.seeds < 1:
            raise EvalUsageError(f"--seeds must be at least 1, not {self.seeds}")
        if not self.timeout_s > 0:
            raise EvalUsageError(f"--timeout must be positive, not {self.timeout_s:g}")


def detect_mode() -> str:
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "interpret"
    import torch

    return "cuda" if torch.cuda.is_available() else "interpret"


def check_mode(mode: str) -> None:
    """A mode this machine can run: cuda needs a GPU."""
    if mode not in ("cuda", "interpret"):
        raise EvalUsageError(f"unknown mode {mode!r} (cuda or interpret)")
    if mode == "cuda" and detect_mode() != "cuda":
        raise EvalUsageError("--mode cuda needs a CUDA GPU, and none is visible here")


def select_workloads(task: Task, mode: str, names: list[str] | None, hidden: bool = False) -> list[Workload]:
    if names:
        chosen = [task.workload(n) for n in names]
        slow = [w.name for w in chosen if mode == "interpret" and not w.interpret]
        if slow:
            raise EvalUsageError(f"workload {slow[0]!r} of {task.name} is too large for the interpreter")
        return chosen
    visible = [w for w in task.workloads if w.interpret] if mode == "interpret" else list(task.workloads)
    if not visible:
        raise EvalUsageError(f"task {task.name} has no workload marked interpret = true")
    extra = [w for w in task.hidden if w.interpret or mode == "cuda"] if hidden else []
    return visible + extra


def evaluate(task: Task, solution: Path, options: EvalOptions | None = None) -> EvalResult:
    """Evaluate a solution file on a task: static checks, correctness, and timing on CUDA."""
    options = options or EvalOptions()
    if not solution.is_file():
        raise EvalUsageError(f"no solution file {solution}")
    mode = options.mode or detect_mode()
    workloads = select_workloads(task, mode, options.workloads, options.hidden)
    seed = options.seed if options.seed is not None else fixed_seed() or draw_seed()
    result, source = _checked(task, solution, seed)
    if not result.static.ok:
        return result.finish()
    eval_dir = owned_dir(EVAL_PREFIX)
    try:
        spec = _spec(task, solution, source, mode, workloads, options, seed, eval_dir)
        result.confined = spec.confine
        run_spec(spec, result, options)
    finally:
        shutil.rmtree(eval_dir, ignore_errors=True)
    return result.finish()


def _checked(task: Task, solution: Path, seed: int) -> tuple[EvalResult, str]:
    """The eval's result begun with the static checks of the solution (and its error when they fail); its source."""
    source = solution.read_text()
    static = check_helpers(check_source(source, task.forbidden_calls), solution, task.forbidden_calls)
    digest = hashlib.sha256(source.encode()).hexdigest()
    result = EvalResult(task=task.name, solution=str(solution), solution_sha256=digest, device=None, static=static,
                        seed=seed)  # fmt: skip
    if not static.ok:
        first = static.violations[0]
        result.error = f"static checks failed: {first.rule} at line {first.line}: {first.message}"
    return result, source


def _spec(task: Task, solution: Path, source: str, mode: str, workloads: list[Workload], options: EvalOptions,
          seed: int, eval_dir: Path) -> EvalSpec:  # fmt: skip
    """The checker's spec for the solution's private copy in eval_dir."""
    copy = _private_copy(solution, source, eval_dir)
    return build_spec(task, copy, mode, workloads, options, seed, eval_dir, solution)


def evaluate_together(
    task: Task, solutions: list[Path], options: EvalOptions | None = None, one_checker: bool | None = None
) -> list[EvalResult]:
    """Evaluate several solutions of one task in one eval: each checked as `evaluate` checks it (its own copy, worker
    and verdict, the same seeds), and on CUDA all of them timed in alternating batches with the reference and with
    each other over the same input sets, so that the ratio of any two is taken under the same conditions (a ladder's
    rungs, an expert beside a peer). One result per solution, in order. In interpret mode nothing is timed, so each
    solution is its own eval (same seeds) unless `one_checker` asks for the group's path there too."""
    options = options or EvalOptions()
    missing = [s for s in solutions if not s.is_file()]
    if missing:
        raise EvalUsageError(f"no solution file {missing[0]}")
    if not solutions:
        raise EvalUsageError("no solution to evaluate")
    mode = options.mode or detect_mode()
    seed = options.seed if options.seed is not None else fixed_seed() or draw_seed()
    same_seed = replace(options, seed=seed)
    if len(solutions) == 1 or not (mode == "cuda" if one_checker is None else one_checker):
        return [evaluate(task, solution, same_seed) for solution in solutions]
    workloads = select_workloads(task, mode, options.workloads, options.hidden)
    results: list[EvalResult] = []
    specs: list[EvalSpec] = []
    running: list[EvalResult] = []
    folders: list[Path] = []
    try:
        for solution in solutions:
            result, source = _checked(task, solution, seed)
            results.append(result)
            if not result.static.ok:
                continue
            folders.append(owned_dir(EVAL_PREFIX))
            spec = _spec(task, solution, source, mode, workloads, options, seed, folders[-1])
            if any(other.triton_cache == spec.triton_cache for other in specs):
                # solutions of one folder (a ladder's rungs, one task's peers) share its cache one eval after the
                # other; at the same moment, one could plant a compiled kernel while the other loads it
                spec = replace(spec, triton_cache=str(_own_cache(Path(spec.triton_cache), solution)))
            specs.append(spec)
            result.confined = specs[-1].confine
            running.append(result)
        if len(specs) == 1:
            run_spec(specs[0], running[0], options)
        elif specs:
            _run_group(specs, running, options)
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    return [result.finish() for result in results]


def _run_group(specs: list[EvalSpec], results: list[EvalResult], options: EvalOptions) -> None:
    """Hand a group's specs to one checker and file each event under the solution it names."""
    in_flight: list[str | None] = [None] * len(specs)
    lead = specs[0]
    silence_s = (lead.timeout_s + lead.startup_timeout_s) * len(specs) + 120
    try:
        with acquire(lead.mode, child_environment(lead.mode)) as checker:
            for event in checker.run(group_to_json(specs), silence_s, options.cancel, paused_by=(GPU_WAIT, GPU_HELD)):
                which = event.get("solution")
                if isinstance(which, int) and 0 <= which < len(results):
                    in_flight[which] = _take(event, results[which], in_flight[which])
                else:  # about the eval as a whole (the checker's own failure): every solution's
                    for i, result in enumerate(results):
                        in_flight[i] = _take(event, result, in_flight[i])
    except CheckerLost as lost:
        for result, workload in zip(results, in_flight):
            if workload is not None:
                result.workloads.append(WorkloadResult(name=workload, failure="error", error=lost.reason))
            elif not result.workloads:
                result.error = lost.reason


def helper_files(solution: Path) -> list[Path]:
    """The .py files beside solution.py that it imports (directly or through each other): the eval copies them
    with it and checks them too. Only imports written as import statements count: the static rules and the audit
    hook refuse importlib and __import__."""
    found: dict[str, Path] = {}
    pending = [solution]
    while pending:
        source = pending.pop()
        try:
            tree = ast.parse(source.read_text(errors="replace"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                sibling = solution.parent / f"{name.split('.')[0]}.py"
                if sibling.name not in found and sibling != solution and sibling.is_file():
                    if sibling.stat().st_size < 1 << 20:
                        found[sibling.name] = sibling
                        pending.append(sibling)
    return sorted(found.values())


def check_helpers(static: StaticResult, solution: Path, forbidden: tuple[str, ...]) -> StaticResult:
    """The static rules over the helper modules too: a solution that moves its fallback into a sibling file it
    imports does not get past them that way."""
    violations = list(static.violations)
    for helper in helper_files(solution):
        try:
            found = check_source(helper.read_text(errors="replace"), forbidden, helper=True)
        except OSError:
            continue
        violations += [Violation(v.rule, v.line, f"{helper.name}:{v.line}: {v.message}") for v in found.violations]
    return StaticResult(ok=not violations, violations=violations)


def fixed_seed() -> int | None:
    """WORKBENCH_SEED=N gives every eval of the process the seed N: for demos and tests whose screens must not
    change from run to run. Never for scoring: a solution may then meet the same inputs in two evals."""
    value = os.environ.get("WORKBENCH_SEED")
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise EvalUsageError(f"WORKBENCH_SEED must be an integer, not {value!r}") from None


def _private_copy(solution: Path, source: str, eval_dir: Path) -> Path:
    """solution.py (and the .py files beside it, which it may import) copied into the eval's own folder."""
    folder = eval_dir / "solution"
    folder.mkdir()
    for sibling in helper_files(solution):
        shutil.copyfile(sibling, folder / sibling.name)
    copy = folder / "solution.py"
    copy.write_text(source)
    return copy


def build_spec(
    task: Task,
    solution: Path,
    mode: str,
    workloads: list[Workload],
    options: EvalOptions,
    seed: int,
    eval_dir: Path,
    original: Path,
) -> EvalSpec:
    """What the checker needs to run these workloads: paths, tolerances, SOL counts, options."""
    specs = []
    for w in workloads:
        timed = mode == "cuda" and not w.interpret and not w.hidden
        specs.append(WorkloadSpec(w.name, dict(w.params), task.sol_work(w), timed, w.hidden))
    work = eval_dir / "work"
    work.mkdir(exist_ok=True)
    return EvalSpec(
        task_dir=str(task.path.resolve()),
        solution=str(solution),
        mode=mode,
        outputs=task.outputs,
        tolerance={k: (t.atol, t.rtol) for k, t in task.tolerance.items()},
        forbidden_calls=DEFAULT_FORBIDDEN_CALLS + tuple(task.forbidden_calls),
        allowed_torch_ops=task.allowed_torch_ops,
        workloads=specs,
        seed=seed,
        encodings=dict(task.encodings),
        expected_float64=task.expected_float64,
        seeds=options.seeds,
        timing=options.timing,
        eval_dir=str(work),
        triton_cache=str(triton_cache_dir(options.sandbox_dir, task, original)),
        ceilings_dir=str(ceilings_cache_dir()),
        confine=sandbox.confinement().works,
        timeout_s=options.timeout_s,
        startup_timeout_s=options.startup_timeout_s,
    )


def ceilings_cache_dir() -> Path:
    """Where the device ceilings are cached (see harness.ceilings); computed without importing torch."""
    base = os.environ.get("WORKBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "workbench"
    )
    return Path(base)


def triton_cache_dir(workspace: Path | None, task: Task, solution: Path) -> Path:
    """Compiled kernels persist between evals of one workspace (a session's own, so one solution can only ever
    poison its own cache), or of one solution folder for command-line evals (never shared between folders: a
    solution could otherwise plant a compiled kernel that another folder's expert would load)."""
    if workspace is not None:
        folder = Path(workspace).resolve() / ".triton"
    else:
        key = hashlib.sha256(str(solution.parent.resolve()).encode()).hexdigest()[:16]
        folder = ceilings_cache_dir() / "triton" / f"{task.name}-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _own_cache(shared: Path, solution: Path) -> Path:
    """A cache of the solution file's own beside its folder's (not inside it: the member that has the folder's cache
    may write anywhere in it), for a group where two members share a folder."""
    folder = shared.with_name(f"{shared.name}-{hashlib.sha256(str(solution.resolve()).encode()).hexdigest()[:16]}")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def child_environment(mode: str) -> dict[str, str]:
    """The checker's environment: no API keys or other secrets; the package importable; the interpreter set."""
    env = sandbox.without_secrets(os.environ)
    # Warm checkers are kept per environment (checker_pool); a variable a test runner changes for every test it
    # runs (pytest names the test in flight) would give each eval a cold checker, and means nothing to one.
    env.pop("PYTEST_CURRENT_TEST", None)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    if mode == "interpret":
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
    return env


def run_spec(spec: EvalSpec, result: EvalResult, options: EvalOptions) -> None:
    """Hand the spec to a checker and collect its result lines until it says done."""
    in_flight: str | None = None
    silence_s = spec.timeout_s + spec.startup_timeout_s + 120  # the checker enforces the real limits itself
    try:
        with acquire(spec.mode, child_environment(spec.mode)) as checker:
            for event in checker.run(spec.to_json(), silence_s, options.cancel, paused_by=(GPU_WAIT, GPU_HELD)):
                in_flight = _take(event, result, in_flight)
    except CheckerLost as lost:
        if in_flight is not None:
            result.workloads.append(WorkloadResult(name=in_flight, failure="error", error=lost.reason))
        elif not result.workloads:
            result.error = lost.reason


def _take(event: dict[str, Any], result: EvalResult, in_flight: str | None) -> str | None:
    """Fold one checker event into the result; returns the workload now in flight."""
    kind = event.get("event")
    if kind == "device":
        result.device = DeviceInfo(**event["device"])
    elif kind == "ceilings":
        result.ceilings = event["ceilings"]
    elif kind == "fatal":
        result.error = str(event["error"])
    elif kind == "start":
        return str(event["workload"])
    elif kind == "result":
        result.workloads.append(workload_from_dict(event["result"]))
        return None
    elif kind == "phase":
        name = str(event["name"])
        result.phases_s[name] = result.phases_s.get(name, 0.0) + float(event["seconds"])
    return in_flight
