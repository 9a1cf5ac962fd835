"""The core stays free of the UI and the harness needs only torch, triton, numpy and the stdlib."""

import subprocess
import sys

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


def _imports(path, top_level_only: bool) -> set[str]:
    """The workbench modules a file imports (absolute imports; relative ones stay inside their package)."""
    import ast

    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {f"{node.module}.{a.name}" for a in node.names}  # a submodule, or a name of the module
        elif top_level_only and isinstance(node, ast.If):  # `if TYPE_CHECKING:` blocks import nothing at run time
            continue
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


def test_module_level_imports_form_no_circle():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(path, top_level_only=True):
            while imported and imported not in modules:  # `from workbench.x import name` names a module or not
                imported = imported.rpartition(".")[0]
            if imported and not name.startswith(imported + ".") and imported != name:  # a parent loads first anyway
                targets.add(imported)
        graph[name] = targets
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
