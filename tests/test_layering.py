"""The core stays free of the UI and the harness needs only torch, triton, numpy and the stdlib."""

import subprocess
import sys

from conftest import REPO

HARNESS_MODULES = ["workbench.harness", "workbench.harness.worker", "workbench.cli", "workbench.score"]


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
