"""The core never imports the app: textual stays out of everything but workbench.tui."""

import subprocess
import sys

from conftest import REPO

CORE = ["workbench.cli", "workbench.cli.session_args", "workbench.cli.sessions", "workbench.session.store",
        "workbench.session.loop", "workbench.agent.scripted", "workbench.agent.providers"]  # fmt: skip


def test_the_core_does_not_import_textual():
    code = "import sys\n" + "".join(f"import {m}\n" for m in CORE) + "print('textual' in sys.modules)\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_importing_the_app_does_no_work():
    code = "import workbench.tui.app, sys; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
