"""Task and guidance loading: parses task.toml and guidance/<name>/hidden.toml, checks each field, finds the files."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.formulas import ITEMSIZES, check_formula, evaluate_formula
from workbench.speed_of_light import SolKeyError, check_keys

TASK_FILES = ("task.toml", "task.md", "inputs.py", "reference.py", "solution.py")
HIDDEN_FILE = "hidden.toml"  # under guidance/<name>/: correctness-only workloads the agent never sees
_WORKLOAD_META = ("name", "seed", "interpret", "note")
_DTYPES = set(ITEMSIZES)
ENCODED_DTYPES = {"float8_e4m3fn", "float8_e5m2"}


# A design ladder's rungs below the expert: no guidance, then L1, then L1 and L2 (docs/task-format.md).
LADDER_RUNGS = ("plain", "l1", "l1_l2")


class TaskFormatError(ValueError):
    """A task folder that does not follow docs/task-format.md; the message names the file and field."""


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


@dataclass(frozen=True)
class Workload:
    name: str
    seed: int
    interpret: bool
    params: dict[str, Any]
    note: str = ""
    hidden: bool = False  # declared in guidance/<name>/hidden.toml: checked on submit, never shown or timed

    def describe(self) -> str:
        """Parameters as `key=value` pairs, for listings."""
        return " ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    summary: str
    path: Path
    outputs: tuple[str, ...]
    requirements: tuple[str, ...]
    forbidden_calls: tuple[str, ...]
    allowed_torch_ops: tuple[str, ...]
    tolerance: dict[str, Tolerance]
    sol: dict[str, str]  # [sol] key (a resource, speed_of_light.RESOURCES) -> formula of its minimum work
    workloads: tuple[Workload, ...]
    guidance_path: Path | None = field(default=None)
    # correctness-only variations from guidance/<name>/hidden.toml; empty when there is no guidance folder
    hidden: tuple[Workload, ...] = field(default=())
    # output name -> the float dtype its integer bits encode (fp8 returned as uint8): compared as decoded values
    encodings: dict[str, str] = field(default_factory=dict)
    # [expected] float64: the expected outputs come from the reference run on float64 copies of the inputs, rounded
    # to the inputs' float dtype, where the reference's own rounding (a long fp32 sum) is coarser than a careful
    # kernel's; the reference is still timed as written
    expected_float64: bool = False

    def file(self, name: str) -> Path:
        return self.path / name

    def workload(self, name: str) -> Workload:
        """A visible workload by name; hidden ones are not found here, so nothing agent-facing can name one."""
        return self._find(name, self.workloads)

    def any_workload(self, name: str) -> Workload:
        """A visible or hidden workload by name (for the trusted side, e.g. a submit that checks hidden shapes)."""
        return self._find(name, (*self.workloads, *self.hidden))

    def _find(self, name: str, among: tuple[Workload, ...]) -> Workload:
        for workload in among:
            if workload.name == name:
                return workload
        known = ", ".join(w.name for w in self.workloads)
        raise TaskFormatError(f"task {self.name} has no workload {name!r} (it has: {known})")

    def sol_work(self, workload: Workload) -> dict[str, float]:
        """The problem's minimum work per resource for a workload ({[sol] key: amount}), from the [sol] formulas."""
        return {key: evaluate_formula(formula, workload.params) for key, formula in self.sol.items()}

    @property
    def expert_path(self) -> Path | None:
        return self.guidance_path / "expert.py" if self.guidance_path else None

    @property
    def ladder(self) -> list[tuple[str, Path]]:
        """The design ladder, lowest rung first: the rungs under guidance/<name>/ladder/ that exist,
        then the expert (every level). Empty when the task keeps no ladder."""
        if self.guidance_path is None or not (self.guidance_path / "ladder").is_dir():
            return []
        rungs = [(r, self.guidance_path / "ladder" / f"{r}.py") for r in LADDER_RUNGS]
        present = [(r, path) for r, path in rungs if path.is_file()]
        return [*present, ("expert", self.guidance_path / "expert.py")] if present else []


def project_root() -> Path:
    """The folder holding tasks/ and guidance/: $WORKBENCH_ROOT, else the nearest parent of the
    working directory that has tasks/, else the checkout this package was installed from."""
    env = os.environ.get("WORKBENCH_ROOT")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "tasks").is_dir() and (folder / "guidance").is_dir():
            return folder
    return Path(__file__).resolve().parent.parent


def task_names(root: Path | None = None) -> list[str]:
    root = root or project_root()
    tasks_dir = root / "tasks"
    if not tasks_dir.is_dir():
        return []
    return sorted(p.name for p in tasks_dir.iterdir() if (p / "task.toml").exists())


def load_task(name_or_path: str | Path, root: Path | None = None) -> Task:
    """Load a task by name (under <root>/tasks) or by folder path, checking the whole format."""
    root = root or project_root()
    candidate = Path(name_or_path)
    folder = candidate if candidate.is_dir() else root / "tasks" / str(name_or_path)
    if not folder.is_dir():
        raise TaskFormatError(f"no task {str(name_or_path)!r} (looked for {folder})")
    for filename in TASK_FILES:
        if not (folder / filename).is_file():
            raise TaskFormatError(f"{folder / filename}: missing file")
    toml_path = folder / "task.toml"
    try:
        data = tomllib.loads(toml_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"{toml_path}: invalid TOML: {exc}") from None
    guidance = root / "guidance" / folder.name
    task = _parse_task(data, folder, toml_path, guidance if guidance.is_dir() else None)
    if task.guidance_path is None or not (task.guidance_path / HIDDEN_FILE).is_file():
        return task
    return replace(task, hidden=_parse_hidden(task, task.guidance_path / HIDDEN_FILE))


def _parse_hidden(task: Task, where: Path) -> tuple[Workload, ...]:
    """The [[hidden]] tables of a hidden.toml: the fields of a [[workload]], checked the same way."""
    try:
        data = tomllib.loads(where.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"{where}: invalid TOML: {exc}") from None
    unknown = sorted(set(data) - {"hidden"})
    if unknown:
        raise TaskFormatError(f"{where}: field {unknown[0]!r} is not allowed (only [[hidden]] tables)")
    hidden = tuple(
        replace(_parse_workload(i, w, where, "hidden"), hidden=True) for i, w in enumerate(_list(data, "hidden", where))
    )
    if not hidden:
        raise TaskFormatError(f"{where}: field 'hidden' needs at least one [[hidden]]")
    known = {key for w in task.workloads for key in w.params}
    for i, workload in enumerate(hidden):
        typo = sorted(set(workload.params) - known)
        if typo:  # a misspelt parameter would silently fall back to make_inputs' default
            raise TaskFormatError(f"{where}: field 'hidden[{i}].{typo[0]}' is no parameter of a visible workload")
    names = [w.name for w in (*task.workloads, *hidden)]
    if len(set(names)) != len(names):
        raise TaskFormatError(f"{where}: field 'hidden.name' repeats a name (visible ones included): {names}")
    _check_sol(task.sol, hidden, where)
    return hidden


def _parse_task(data: dict[str, Any], folder: Path, where: Path, guidance: Path | None) -> Task:
    name = _field(data, "name", str, where)
    if name != folder.name:
        raise TaskFormatError(f"{where}: field 'name' is {name!r} but the folder is {folder.name!r}")
    requirements = _table(data, "requirements", where)
    tolerance_table = _table(data, "tolerance", where)
    tolerance = {}
    for dtype, tol in tolerance_table.items():
        if dtype not in _DTYPES:
            raise TaskFormatError(f"{where}: field 'tolerance.{dtype}' is not a torch dtype name")
        tol = tol if isinstance(tol, dict) else {}
        atol = _field(tol, "atol", (int, float), where, f"tolerance.{dtype}.")
        rtol = _field(tol, "rtol", (int, float), where, f"tolerance.{dtype}.")
        tolerance[dtype] = Tolerance(float(atol), float(rtol))
    workloads = tuple(_parse_workload(i, w, where) for i, w in enumerate(_list(data, "workload", where)))
    if not workloads:
        raise TaskFormatError(f"{where}: field 'workload' needs at least one [[workload]]")
    names = [w.name for w in workloads]
    if len(set(names)) != len(names):
        raise TaskFormatError(f"{where}: field 'workload.name' repeats a name: {names}")
    outputs = tuple(_string_list(data, "outputs", where, required=True))
    encodings = {}
    for output, encoded in (data.get("encodings") or {}).items():
        if output not in outputs:
            raise TaskFormatError(f"{where}: field 'encodings.{output}' names no output (outputs: {list(outputs)})")
        if encoded not in ENCODED_DTYPES:
            raise TaskFormatError(f"{where}: field 'encodings.{output}' must be one of {sorted(ENCODED_DTYPES)}")
        encodings[output] = encoded
    expected = data.get("expected", {})
    if (
        not isinstance(expected, dict)
        or set(expected) - {"float64"}
        or type(expected.get("float64", False)) is not bool
    ):
        raise TaskFormatError(f"{where}: table 'expected' takes one field, float64 = true or false")
    expected_float64 = expected.get("float64", False)
    sol = _parse_sol(_table(data, "sol", where), where)
    _check_sol(sol, workloads, where)
    return Task(
        name=name,
        title=_field(data, "title", str, where),
        summary=_field(data, "summary", str, where),
        path=folder,
        outputs=outputs,
        requirements=tuple(_string_list(requirements, "text", where, "requirements.")),
        forbidden_calls=tuple(_string_list(requirements, "forbidden_calls", where, "requirements.")),
        allowed_torch_ops=tuple(_string_list(requirements, "allowed_torch_ops", where, "requirements.")),
        tolerance=tolerance,
        sol=sol,
        workloads=workloads,
        guidance_path=guidance,
        encodings=encodings,
        expected_float64=expected_float64,
    )


def _parse_sol(table: dict[str, Any], where: Path) -> dict[str, str]:
    """The [sol] table: a formula (a string) for each resource the problem needs, `bytes` always."""
    try:
        check_keys(table)
    except SolKeyError as exc:
        raise TaskFormatError(f"{where}: table [sol]: {exc}") from None
    return {key: _field(table, key, str, where, "sol.") for key in table}


def _check_sol(sol: dict[str, str], workloads: tuple[Workload, ...], where: Path) -> None:
    """Every [sol] formula must evaluate, to a finite amount of at least 0, on every workload, hidden ones too (a
    result reports SOL for each)."""
    for workload in workloads:
        for key, formula in sol.items():
            try:
                check_formula(formula, set(workload.params))
                value = evaluate_formula(formula, workload.params)
            except (ValueError, ArithmeticError, TypeError) as exc:  # FormulaError, or a string where a number goes
                raise TaskFormatError(f"{where}: field 'sol.{key}' on workload {workload.name!r}: {exc}") from None
            if not 0 <= value < float("inf"):
                raise TaskFormatError(f"{where}: field 'sol.{key}' on workload {workload.name!r} is {value}, "
                                      "not an amount of work")  # fmt: skip


def _parse_workload(index: int, raw: Any, where: Path, table: str = "workload") -> Workload:
    prefix = f"{table}[{index}]."
    if not isinstance(raw, dict):
        raise TaskFormatError(f"{where}: field '{prefix[:-1]}' must be a table")
    params = {k: v for k, v in raw.items() if k not in _WORKLOAD_META}
    if "dtype" in params and params["dtype"] not in _DTYPES:
        raise TaskFormatError(f"{where}: field '{prefix}dtype' is {params['dtype']!r}, not a torch dtype name")
    return Workload(
        name=_field(raw, "name", str, where, prefix),
        seed=_field(raw, "seed", int, where, prefix),
        interpret=bool(raw.get("interpret", False)),
        params=params,
        note=str(raw.get("note", "")),
    )


def _field(table: dict[str, Any], key: str, kind: Any, where: Path, prefix: str = "") -> Any:
    if key not in table:
        raise TaskFormatError(f"{where}: missing field '{prefix}{key}'")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TaskFormatError(f"{where}: field '{prefix}{key}' has the wrong type ({type(value).__name__})")
    return value


def _table(data: dict[str, Any], key: str, where: Path) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise TaskFormatError(f"{where}: missing table [{key}]")
    return value


def _list(data: dict[str, Any], key: str, where: Path) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise TaskFormatError(f"{where}: field '{key}' must be an array of tables")
    return value


def _string_list(table: dict[str, Any], key: str, where: Path, prefix: str = "", required: bool = False) -> list[str]:
    if key not in table:
        if required:
            raise TaskFormatError(f"{where}: missing field '{prefix}{key}'")
        return []
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskFormatError(f"{where}: field '{prefix}{key}' must be a list of strings")
    return value
