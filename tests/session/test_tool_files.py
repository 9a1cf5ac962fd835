"""The file tools: numbered reads that match Python's line numbers, and paths and files the tools cannot take
(a folder, a NUL, a symlink out or dangling, bytes that are not UTF-8) as error results, never exceptions."""

import os
import threading

import pytest
from conftest import REPO

from workbench.session.file_tools import READ_CAP
from workbench.session.tools import ToolBox
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task


@pytest.fixture
def box(tmp_path):
    task = load_task("rmsnorm_residual", REPO)
    create_workspace(task, tmp_path / "work", set())
    return ToolBox(task, tmp_path / "work", "interpret")


def call(box, name, **args):
    return box.execute(name, args, threading.Event())


def test_read_file_line_numbers_are_the_ones_a_traceback_cites(box):
    # a form feed and a line separator in comments: str.splitlines() breaks lines there, Python does not
    source = "a = 1\n# page break \x0c here\n# a line separator \u2028 here\n" + "b = 2\n" * 18 + "raise ValueError\n"
    (box.work / "solution.py").write_text(source)
    try:
        exec(compile(source, "solution.py", "exec"), {})
    except ValueError as exc:
        line = exc.__traceback__.tb_next.tb_lineno
    assert line == 22
    outcome = call(box, "read_file", path="solution.py", offset=line, limit=1)
    assert outcome.text == "    22\traise ValueError\n[solution.py: lines 22-22 of 22]"


def test_read_file_offset_limit_and_how_to_read_on(box):
    (box.work / "notes.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    part = call(box, "read_file", path="notes.txt", offset=3, limit=2).text
    assert part == "     3\tline 3\n     4\tline 4\n[notes.txt: lines 3-4 of 10; read on with offset=5]"
    whole = call(box, "read_file", path="notes.txt").text
    assert whole.startswith("     1\tline 1\n") and whole.endswith("[notes.txt: 10 lines, all shown]")
    past = call(box, "read_file", path="notes.txt", offset=11)
    assert past.is_error and "offset 11 is past the end: notes.txt has 10 lines" in past.text


def test_read_file_stops_at_its_character_cap_on_a_line_end(box):
    (box.work / "big.txt").write_text("".join(f"{i:05d} {'x' * 94}\n" for i in range(3000)))
    text = call(box, "read_file", path="big.txt").text
    assert len(text) <= READ_CAP + 200
    last_shown = int(text.splitlines()[-2].split("\t")[0])
    assert text.endswith(f"cut at 40,000 characters); read on with offset={last_shown + 1}]")


def test_read_file_of_binary_and_non_utf8_files(box):
    (box.work / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02")
    assert "binary file (7 bytes), not shown" in call(box, "read_file", path="blob.bin").text
    (box.work / "latin1.txt").write_bytes(b"caf\xe9\n")
    text = call(box, "read_file", path="latin1.txt").text
    assert "caf\\xe9" in text and "not valid UTF-8 (first bad byte at offset 3)" in text


def test_edit_file_on_a_binary_file_is_an_error_result(box):
    (box.work / "blob.bin").write_bytes(b"ab\xff\xfecd")
    outcome = call(box, "edit_file", path="blob.bin", old="ab", new="xy")
    assert outcome.is_error and "blob.bin is not UTF-8 text (byte 0xff at offset 2)" in outcome.text
    assert (box.work / "blob.bin").read_bytes() == b"ab\xff\xfecd"


def test_write_file_to_a_folder_is_an_error_result(box):
    (box.work / "kernels").mkdir()
    outcome = call(box, "write_file", path="kernels", content="x")
    assert outcome.is_error and "kernels is a folder" in outcome.text
    under_a_file = call(box, "write_file", path="solution.py/extra.py", content="x")
    assert under_a_file.is_error and "a part of this path is a file" in under_a_file.text


@pytest.mark.parametrize("name", ["read_file", "write_file", "list_files"])
def test_a_nul_in_a_path_is_an_error_result(box, name):
    args = {"path": "solution\x00.py", **({"content": "x"} if name == "write_file" else {})}
    outcome = box.execute(name, args, threading.Event())
    assert outcome.is_error and "a path cannot hold a NUL character" in outcome.text and "\x00" not in outcome.text


def test_symlinks_out_of_the_workspace_are_refused_and_dangling_ones_listed(box, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the agent")
    os.symlink(secret, box.work / "out.txt")
    os.symlink(box.work / "gone.txt", box.work / "dangling.txt")
    for name, args in [("read_file", {}), ("write_file", {"content": "x"}), ("edit_file", {"old": "n", "new": "x"})]:
        outcome = box.execute(name, {"path": "out.txt", **args}, threading.Event())
        assert outcome.is_error and "outside the workspace" in outcome.text
    assert secret.read_text() == "not for the agent"
    listing = call(box, "list_files")
    assert not listing.is_error
    assert f"dangling.txt -> {box.work / 'gone.txt'} (dangling symlink)" in listing.text
    assert "out.txt -> " in listing.text and "points out of the workspace" in listing.text


def test_edit_file_shows_the_lines_around_the_edit_and_where_a_miss_almost_matched(box):
    twin = "def {}(x):\n    y = x + 1\n    return y\n"
    (box.work / "k.py").write_text(twin.format("f") + "\n\n" + twin.format("g"))
    twice = call(box, "edit_file", path="k.py", old="    y = x + 1\n", new="    y = x + 2\n")
    assert twice.is_error and "occurs 2 times in k.py (at lines 2, 7)" in twice.text
    done = call(box, "edit_file", path="k.py", old="def g(x):\n    y = x + 1", new="def g(x):\n    y = x + 3")
    assert done.text.startswith("edited k.py: 1 replacement, the first at line 6; now:\n")
    assert "     7\t    y = x + 3" in done.text
    miss = call(box, "edit_file", path="k.py", old="def f(x):\n  y = x + 1", new="z")
    assert miss.is_error and "does not occur in k.py; its first line occurs at line 1" in miss.text


def test_a_pipe_is_refused_rather_than_waited_on(box):
    os.mkfifo(box.work / "pipe")
    for name, args in [("read_file", {}), ("write_file", {"content": "x"}), ("edit_file", {"old": "a", "new": "b"})]:
        outcome = box.execute(name, {"path": "pipe", **args}, threading.Event())
        assert outcome.is_error and "pipe is not a regular file" in outcome.text
