import shutil
import subprocess
import sys

import pytest
from conftest import FIXTURE_ROOT, REPO

from workbench.tasks import TaskFormatError, load_task, task_names


def test_every_project_task_loads_and_has_an_interpret_workload():
    names = task_names(REPO)
    assert {"rmsnorm_residual", "gram_syrk", "segmented_scan", "cross_entropy"} <= set(names)
    for name in names:
        task = load_task(name, REPO)
        assert 3 <= len([w for w in task.workloads if not w.interpret]) <= 4, name  # realistic H200 sizes
        assert any(w.interpret for w in task.workloads), name
        assert task.expert_path is not None and task.expert_path.exists(), name
        wrong = list((task.guidance_path / "wrong").glob("*.py"))
        assert len(wrong) >= 3, name
        for w in (*task.workloads, *task.hidden):
            work = task.sol_work(w)
            assert work["bytes"] > 0 and all(v >= 0 for v in work.values()), (name, w.name)


@pytest.fixture
def task_copy(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    return root, root / "tasks" / "scale_add" / "task.toml"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('title = "Scaled add (test fixture)"\n', "", "'title'"),
        ("seed = 2\n", 'seed = "two"\n', "'workload[1].seed'"),
        ('bytes = "3 * n * itemsize(dtype)"', 'bytes = "3 * m"', "'sol.bytes'"),
        ("float32 = { atol = 1e-6, rtol = 1e-6 }", "float32 = { atol = 1e-6 }", "'tolerance.float32.rtol'"),
        (
            'dtype = "float32"\n\n[[workload]]\nname = "small"',
            'dtype = "float33"\n\n[[workload]]\nname = "small"',
            "'workload[0].dtype'",
        ),
        ('name = "small"', 'name = "tiny"', "'workload.name'"),
        ('name = "scale_add"', 'name = "other"', "'name'"),
        ("[sol]", "[sol\n", "invalid TOML"),
        ("[sol]", '[encodings]\nnot_an_output = "float8_e4m3fn"\n\n[sol]', "'encodings.not_an_output'"),
        ("[sol]", '[encodings]\nout = "int8"\n\n[sol]', "'encodings.out'"),
        ("[sol]", '[expected]\nfloat64 = "yes"\n\n[sol]', "'expected'"),
        ("[sol]", "[expected]\nfp64 = true\n\n[sol]", "'expected'"),
    ],
)
def test_malformed_toml_names_file_and_field(task_copy, old, new, field):
    root, toml = task_copy
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new, 1))
    with pytest.raises(TaskFormatError) as err:
        load_task("scale_add", root)
    message = str(err.value)
    assert str(toml) in message and field in message
    assert "\n" not in message


def test_missing_file_is_named(task_copy):
    root, toml = task_copy
    (toml.parent / "inputs.py").unlink()
    with pytest.raises(TaskFormatError, match=r"inputs\.py: missing file"):
        load_task("scale_add", root)


def test_cli_reports_a_malformed_task_in_one_line(task_copy):
    root, toml = task_copy
    toml.write_text(toml.read_text().replace("seed = 1\n", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "tasks"],
        capture_output=True,
        text=True,
        env={"WORKBENCH_ROOT": str(root), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "missing field 'workload[0].seed'" in proc.stderr and str(toml) in proc.stderr


HIDDEN = """[[hidden]]
name = "odd"
seed = 7
interpret = true
note = "an odd length"
n = 1001
dtype = "float32"
"""


def _with_hidden(root, text):
    (root / "guidance" / "scale_add" / "hidden.toml").write_text(text)
    return load_task("scale_add", root)


def test_hidden_workloads_load_from_guidance_and_stay_out_of_visible_lookups(task_copy):
    root, _ = task_copy
    assert load_task("scale_add", root).hidden == ()  # no hidden.toml: nothing hidden
    task = _with_hidden(root, HIDDEN)
    [odd] = task.hidden
    assert odd.hidden and odd.params == {"n": 1001, "dtype": "float32"} and odd.interpret
    assert not any(w.hidden for w in task.workloads)
    assert "odd" not in {w.name for w in task.workloads}
    with pytest.raises(TaskFormatError, match="no workload 'odd'"):
        task.workload("odd")
    assert task.any_workload("odd") is odd
    assert task.any_workload("tiny") is task.workload("tiny")


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("seed = 7\n", 'seed = "seven"\n', "'hidden[0].seed'"),
        ('name = "odd"', 'name = "tiny"', "'hidden.name'"),  # a visible workload's name
        ('dtype = "float32"', 'dtype = "float31"', "'hidden[0].dtype'"),
        ("n = 1001", "m = 1001", "'hidden[0].m'"),  # a misspelt parameter
        ("n = 1001", 'n = "x"', "'sol.bytes'"),  # a formula that does not evaluate on it
        ("[[hidden]]", "[[workload]]", "'workload'"),  # visible workloads do not belong in guidance/
        ("[[hidden]]", "[[hidden]", "invalid TOML"),
    ],
)
def test_malformed_hidden_toml_names_file_and_field(task_copy, old, new, field):
    root, _ = task_copy
    assert old in HIDDEN
    hidden_toml = root / "guidance" / "scale_add" / "hidden.toml"
    with pytest.raises(TaskFormatError) as err:
        _with_hidden(root, HIDDEN.replace(old, new, 1))
    message = str(err.value)
    assert str(hidden_toml) in message and field in message
    assert "\n" not in message


def test_an_empty_hidden_toml_is_an_error(task_copy):
    root, _ = task_copy
    with pytest.raises(TaskFormatError, match=r"hidden\.toml: field 'hidden' needs at least one"):
        _with_hidden(root, "# nothing yet\n")


def test_an_fp8_task_declares_its_bit_pattern_output_as_encoded():
    task = load_task("fp8_rowwise_quant")
    assert task.encodings == {"q": "float8_e4m3fn"} and "float8_e4m3fn" in task.tolerance
