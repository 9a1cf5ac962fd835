"""The design sweeps' source-edit candidates (benchmarks/design_sweep.py `edited`): a candidate is the kernel file with
the stated edits, and a sweep whose edit no longer matches the file stops instead of timing an unedited copy."""

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


@pytest.mark.parametrize(
    ("script", "task"),
    [("residency_designs.py", "swiglu"), ("residency_designs.py", "segment_softmax"), ("topk_designs.py", None)],
)
def test_every_committed_edit_still_matches_its_expert(script, task):
    spec_name = script.removesuffix(".py")
    spec = importlib.util.spec_from_file_location(spec_name, REPO / "benchmarks" / script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    edits = module.EDITS[task] if task else module.EDITS
    expert = REPO / "guidance" / (task or "topk_rows") / "expert.py"
    text = expert.read_text()
    for name, changes in edits.items():
        for old in changes:
            assert old in text, f"{script} {name}: {old!r} is no longer in {expert}"
