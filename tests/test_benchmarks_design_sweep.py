"""The design sweeps' candidates (benchmarks/design_sweep.py): a source-edit candidate is the kernel file with the
stated edits, a sweep whose edit no longer matches the file stops instead of timing an unedited copy, and every
committed swap and edit still names what its expert has."""

import importlib.util
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import design_sweep  # noqa: E402


def test_an_edited_candidate_is_the_file_with_every_edit_applied(tmp_path):
    source = tmp_path / "kernel.py"
    source.write_text("TILE = 8192\nHINT = 'evict_first'\n\ndef solution():\n    return TILE, HINT\n")
    module = design_sweep.edited(source, {"TILE = 8192": "TILE = 1024", "'evict_first'": "None"})
    assert module.solution() == (1024, None)
    assert "TILE = 8192" in source.read_text()  # the original is untouched


def test_an_edit_that_no_longer_matches_stops_the_sweep(tmp_path):
    source = tmp_path / "kernel.py"
    source.write_text("TILE = 4096\n")
    with pytest.raises(SystemExit, match="TILE = 8192"):
        design_sweep.edited(source, {"TILE = 8192": "TILE = 1024"})


def _script(name):
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), REPO / "benchmarks" / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _committed_candidates():
    """(script, task, swaps, edits) of every sweep that names its candidates by the expert's attributes and source."""
    residency = _script("residency_designs.py")
    for task, swaps in residency.SWAPS.items():
        yield "residency_designs.py", task, swaps, residency.EDITS.get(task, {})
    assert set(residency.EDITS) <= set(residency.SWAPS)  # an edited task is a task the script accepts
    topk = _script("topk_designs.py")
    yield "topk_designs.py", topk.TASK, topk.VARIANTS, topk.EDITS


@pytest.mark.parametrize(("script", "task", "swaps", "edits"), list(_committed_candidates()))
def test_every_committed_swap_and_edit_still_matches_its_expert(script, task, swaps, edits):
    expert = REPO / "guidance" / task / "expert.py"
    module = design_sweep.load_module(f"_expert_{task}", expert)
    for name, attrs in swaps.items():
        missing = [attr for attr in attrs if not hasattr(module, attr)]
        assert not missing, f"{script} {name}: the {task} expert has no {missing}"
    text = expert.read_text()
    for name, changes in edits.items():
        for old in changes:
            assert old in text, f"{script} {name}: {old!r} is no longer in {expert}"
