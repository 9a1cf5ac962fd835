"""The guidance items' `code` patterns: how guidance.toml states them, and that each is honest for the suite, found in
the expert's own code (comments and strings taken out, as the judge sees a citation) and in none of the lines every
kernel has."""

import re

import pytest
from conftest import REPO

from workbench.guidance import GuidanceItem, load_guidance
from workbench.judge.code_spans import code_mask, code_only
from workbench.tasks import TaskFormatError, load_task, task_names

# Lines any Triton solution has, whatever its design: a pattern that matches one tells no item apart.
EVERY_KERNEL = [
    "import triton",
    "@triton.jit",
    "def solution(x):",
    "pid = tl.program_id(0)",
    "offs = pid * BLOCK + tl.arange(0, BLOCK)",
    "mask = offs < n",
    "x = tl.load(x_ptr + offs, mask=mask, other=0.0)",
    "tl.store(y_ptr + offs, x, mask=mask)",
    "x = x + y",
    "y = torch.empty_like(x)",
    "grid = (triton.cdiv(n, BLOCK),)",
    "kernel[grid](x, y, n, BLOCK=1024)",
    "return y",
]
ITEM = '[[item]]\nid = "L1.1"\nlevel = 1\ntitle = "t"\ntext = "x"\n'


def suite_items() -> list[tuple[str, GuidanceItem]]:
    items = []
    for name in task_names(REPO):
        task = load_task(name, REPO)
        assert task.guidance_path is not None, name
        items += [(name, item) for item in load_guidance(task.guidance_path)]
    return items


def code_lines(source: str) -> list[str]:
    """Each line of a file as the judge matches a one-line citation of it: its code alone."""
    mask = code_mask(source)
    return [code_only([line], [row]) for line, row in zip(source.splitlines(), mask, strict=True)]


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("code = 'tl\\.dot'", ("tl\\.dot",)),
        ("code = ['tl\\.num_programs', 'multi_processor_count']", ("tl\\.num_programs", "multi_processor_count")),
        ("", ()),
    ],
)
def test_code_is_one_pattern_a_list_of_them_or_absent(tmp_path, field, expected):
    path = tmp_path / "guidance.toml"
    path.write_text(ITEM + field + "\n")
    (item,) = load_guidance(path)
    assert item.code == expected
    assert item.code_matches("acc += tl.dot(a, b)") == (expected != ("tl\\.num_programs", "multi_processor_count"))


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("code = 'tl.dot('", "field 'item[0].code': 'tl.dot(' is not a regular expression (missing ), unterminated"),
        ("code = ['x*']", "field 'item[0].code': 'x*' matches empty code, so it would tell nothing apart"),
        ("code = [3]", "field 'item[0].code' must be a regular expression or a list of them (non-empty strings)"),
        ("code = ['']", "field 'item[0].code' must be a regular expression or a list of them (non-empty strings)"),
    ],
)
def test_a_bad_pattern_is_one_line_naming_the_item(tmp_path, field, expected):
    path = tmp_path / "guidance.toml"
    path.write_text(ITEM + field + "\n")
    with pytest.raises(TaskFormatError) as caught:
        load_guidance(path)
    assert str(caught.value).startswith(f"{path}: {expected}") and "\n" not in str(caught.value)


def test_every_pattern_item_is_realised_on_a_line_of_its_expert():
    missing = []
    for name, item in suite_items():
        if not item.code:
            continue
        task = load_task(name, REPO)
        assert task.expert_path is not None
        if not any(item.code_matches(line) for line in code_lines(task.expert_path.read_text())):
            missing.append(f"{name} {item.id}: {item.code}")
    assert missing == []


def test_no_pattern_matches_a_line_every_kernel_has():
    loose = [f"{name} {item.id} /{pattern}/: {line}" for name, item in suite_items() for pattern in item.code
             for line in EVERY_KERNEL if re.search(pattern, line)]  # fmt: skip
    assert loose == []


def test_a_comment_or_string_naming_the_construct_does_not_match_the_expert_item():
    # The expert line passes; the same words in a comment or a string beside other code do not.
    (tiles,) = [item for name, item in suite_items() if name == "gram_syrk" and item.id == "L3.1"]
    assert tiles.code_matches(code_lines("acc = tl.dot(a, b, acc)\n")[0])
    assert not tiles.code_matches(code_lines("acc += a * b  # tl.dot(a, b, acc) on tensor cores\n")[0])
    assert not tiles.code_matches(code_lines('PLAN = "acc = tl.dot(a, b, acc)"\n')[0])
