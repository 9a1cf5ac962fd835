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
