import os

import pytest
from conftest import REPO

from workbench.guidance import load_guidance, with_dependencies
from workbench.session.workspace import WorkspaceError, create_workspace, resolve_inside
from workbench.tasks import load_task


def test_unguided_workspace_has_the_task_files_only(tmp_path):
    task = load_task("rmsnorm_residual", REPO)
    create_workspace(task, tmp_path / "w", set())
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == sorted(
        ["task.toml", "task.md", "inputs.py", "reference.py", "solution.py"]
    )


def test_guided_workspace_has_the_chosen_levels_and_their_dependencies_but_no_expert(tmp_path):
    task = load_task("gram_syrk", REPO)
    create_workspace(task, tmp_path / "w", {2})
    guidance = (tmp_path / "w" / "GUIDANCE.md").read_text()
    items = load_guidance(task.guidance_path)
    given = with_dependencies(items, {2})
    assert any(i.level == 2 for i in given)
    for item in items:
        assert (f"### {item.id}:" in guidance) == (item in given)
    assert not (tmp_path / "w" / "expert.py").exists() and not (tmp_path / "w" / "wrong").exists()
    assert "expert.py" not in guidance


def test_paths_cannot_leave_the_workspace(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    (tmp_path / "secret.txt").write_text("x")
    os.symlink(tmp_path / "secret.txt", work / "link.txt")
    for bad in ("../secret.txt", "/etc/passwd", "link.txt", "a/../../secret.txt"):
        with pytest.raises(WorkspaceError):
            resolve_inside(work, bad)
    assert resolve_inside(work, "sub/new.py") == (work / "sub" / "new.py").resolve()
