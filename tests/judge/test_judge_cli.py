"""`workbench judge`: a table or JSON of the six scores; bad input is one line and exit status 2."""

import json
import shutil
import subprocess
import sys

import pytest
from conftest import REPO
from judge_helpers import DESIGN, EXAMPLE, SOLUTION, answer, write_script

from workbench.judge.cli import main
from workbench.session.log import read_log

SCRIPTED = ["--provider", "scripted", "--script", "{script}"]


@pytest.fixture
def script(tmp_path):
    return write_script(tmp_path / "judge.json", [answer()])


def test_judging_a_session_prints_the_table_with_reasons_and_citations(tmp_path, script, capsys):
    session = tmp_path / EXAMPLE.name
    shutil.copytree(EXAMPLE, session)
    assert main(["judge", str(session), "--provider", "scripted", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert f"judge rmsnorm_residual (session {EXAMPLE.name}, turn 6) by scripted/scripted" in out
    judged = "judged: the final submission (scoring rule final), turn 6 by agent; an older log: the workspace as "
    assert judged + "recorded at the end of that turn" in out
    assert "design             75   50   25   50.0  JSdesign" in out
    assert "implementation    100   50   25   58.3  JSimpl" in out
    assert "implementation L1: 100  implementation L1 reason" in out
    assert '  L1.1  solution.py:19  "h = (x + r).to(tl.bfloat16)"' in out  # the item each citation evidences
    assert read_log(session / "events.jsonl").events[-1].kind == "judgement"


def test_judging_files_prints_json(script, capsys):
    argv = ["judge", "--task", "rmsnorm_residual", "--solution", str(SOLUTION), "--design", str(DESIGN),
            "--provider", "scripted", "--script", str(script), "--json"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["js_design"] == 50.0 and data["implementation"]["L1"]["score"] == 100 and data["session"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["judge"], "give a SESSION folder, or --task T --solution F [--design D]"),
        (["judge", "x", "--task", "rmsnorm_residual"], "give a SESSION or --task/--solution/--design, not both"),
        (["judge", "--task", "rmsnorm_residual", "--solution", "s.py", "--turn", "3"], "--turn needs a SESSION"),
        (["judge", "--task", "rmsnorm_residual", "--solution", "s.py", "--provider", "scripted"], "needs --script"),
        (["judge", "--task", "nope", "--solution", "s.py", *SCRIPTED], "no task 'nope'"),
        (["judge", "--task", "rmsnorm_residual", "--solution", "no.py", *SCRIPTED], "no.py: cannot read the solution"),
        (["judge", "nowhere", *SCRIPTED], "no session log here"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(argv, message, script, capsys):
    assert main([a.replace("{script}", str(script)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: ") and message in err and err.count("\n") == 1


def test_a_judge_model_that_fails_exits_1(tmp_path, capsys):
    empty = write_script(tmp_path / "empty.json", [])
    argv = ["judge", "--task", "rmsnorm_residual", "--solution", str(SOLUTION), "--provider", "scripted",
            "--script", str(empty)]  # fmt: skip
    assert main(argv) == 1
    assert "the judge's model failed: the script has no response left" in capsys.readouterr().err


def test_the_judge_imports_no_ui_sdk_or_torch():
    code = (
        "import sys, workbench.judge, workbench.judge.cli\n"
        "print(','.join(m for m in ('textual', 'anthropic', 'openai', 'torch') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
