"""The core stays free of the UI and the harness needs only torch, triton, numpy and the stdlib."""

import subprocess
import sys

import pytest
from conftest import REPO

HARNESS_MODULES = [
    "workbench.harness", "workbench.harness.checker", "workbench.harness.solution_side.main", "workbench.cli",
    "workbench.score",
]  # fmt: skip


def test_harness_imports_no_ui_or_sdk():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in HARNESS_MODULES)
        + "bad = [m for m in ('textual', 'anthropic', 'openai', 'watchdog', 'pygments') if m in sys.modules]\n"
        + "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_importing_the_harness_does_no_work():
    code = "import workbench.harness, workbench.tasks, workbench.cli; import sys; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.stdout.strip() == "False"  # torch is loaded only when an eval runs


def test_the_solution_side_package_stands_alone():
    """It is copied on its own into each eval's sandbox: an import of the rest of the package would fail there (and
    would put verdict code back into the untrusted process)."""
    import ast

    folder = REPO / "workbench" / "harness" / "solution_side"
    offenders = []
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "workbench"]
    assert offenders == []


def _import_nodes(tree, top_level_only: bool) -> list:
    """The import statements of a module: at its top level, or anywhere (inside functions too), but never inside an
    `if TYPE_CHECKING:` block, which imports nothing at run time."""
    import ast

    found = []
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif not top_level_only:
            pending.extend(ast.iter_child_nodes(node))
    return found


def _imports(path, top_level_only: bool) -> set[str]:
    """The workbench modules a file imports (absolute imports; relative ones stay inside their package)."""
    import ast

    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text()), top_level_only):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif node.level == 0 and node.module:
            found |= {f"{node.module}.{a.name}" for a in node.names}  # a submodule, or a name of the module
    return {name for name in found if name.split(".")[0] == "workbench"}


def _modules() -> dict[str, object]:
    root = REPO / "workbench"
    found = {}
    for path in root.rglob("*.py"):
        if "solution_side" in path.parts:
            continue  # copied alone into each sandbox, checked above
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


CORE_PACKAGES = ("workbench.session", "workbench.harness", "workbench.agent")
FRONT_ENDS = ("workbench.cli", "workbench.tui", "workbench.bench.cli", "workbench.judge.cli")


def test_the_core_never_reaches_up_into_a_front_end():
    """Not even from inside a function: the core is what the command line, the app and the bench share."""
    offenders = []
    for name, path in _modules().items():
        if name.startswith(CORE_PACKAGES):
            for imported in _imports(path, top_level_only=False):
                if any(imported == f or imported.startswith(f + ".") for f in FRONT_ENDS):
                    offenders.append(f"{name} imports {imported}")
    assert offenders == []


def _graph(top_level_only: bool) -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(path, top_level_only):
            while imported and imported not in modules:  # `from workbench.x import name` names a module or not
                imported = imported.rpartition(".")[0]
            if imported and not name.startswith(imported + ".") and imported != name:  # a parent loads first anyway
                targets.add(imported)
        graph[name] = targets
    return graph


@pytest.mark.parametrize("top_level_only", [True, False], ids=["module-level", "with-imports-inside-functions"])
def test_the_import_graph_has_no_circles(top_level_only):
    graph = _graph(top_level_only)
    state: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert circles == [], "\n".join(" -> ".join(c) for c in circles)


# The layers, lowest first: a module may import its own layer and the layers below it, never one above, imports inside
# functions included. The core is harness < agent < session; the judge and the bench build on sessions; the command
# line and the app are the front ends. Root modules: the suite's files (tasks, guidance, formulas) at the bottom, the
# readers of eval results (score, suite, report_text, ladder_report) beside the agent.
LAYERS = [
    ("workbench.tasks", "workbench.guidance", "workbench.formulas", "workbench.speed_of_light", "workbench.jsonsafe"),
    ("workbench.harness",),
    (
        "workbench.agent",
        "workbench.score",
        "workbench.suite",
        "workbench.peers",
        "workbench.report_text",
        "workbench.ladder_report",
        "workbench.eval_feedback",
    ),
    ("workbench.session",),
    ("workbench.judge", "workbench.bench", "workbench.export"),
    ("workbench.cli", "workbench.tui", "workbench.bench.cli", "workbench.judge.cli", "workbench.__main__"),
]


def _layer(module: str) -> int:
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:  # the longest prefix decides: bench.cli is a front end, bench a layer below
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS"
    return rank


def test_every_layer_imports_only_its_own_and_the_layers_below():
    offenders = [f"{name} (layer {_layer(name)}) imports {target} (layer {_layer(target)})"
                 for name, targets in _graph(top_level_only=False).items() if name != "workbench"
                 for target in targets if target != "workbench" and _layer(target) > _layer(name)]  # fmt: skip
    assert offenders == []


THIRD_PARTY = {  # what each part may import besides the stdlib and workbench
    "workbench.harness": {"torch", "triton", "numpy", "nvtx"},
    "workbench.session": {"torch"},  # profile_driver.py only, in the profiled process, never in the session's
    "workbench.agent": {"anthropic", "httpx2"},
    "workbench.bench": {"ray", "matplotlib"},
    "workbench.export": {"pygments"},
    "workbench.tui": {"textual", "rich", "watchdog"},
}


def test_each_part_imports_only_the_libraries_it_is_allowed():
    import ast

    offenders = []
    for name, path in _modules().items():
        allowed = next((v for k, v in THIRD_PARTY.items() if name == k or name.startswith(k + ".")), set())
        for node in _import_nodes(ast.parse(path.read_text()), top_level_only=False):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for top in {n.split(".")[0] for n in names if not (isinstance(node, ast.ImportFrom) and node.level)}:
                if top and top != "workbench" and top not in sys.stdlib_module_names and top not in allowed:
                    offenders.append(f"{name} imports {top}")
    assert offenders == []
