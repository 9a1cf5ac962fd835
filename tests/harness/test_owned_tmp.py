"""Folders in /tmp (an eval's, a worker's home, a zygote's home) are removed once the process that made them is gone,
also one that was killed and never removed them (each such folder was left for good)."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from workbench.harness import sandbox
from workbench.harness.owned_tmp import UNOWNED_GRACE_S, owned_dir, remove_stale, started
from workbench.harness.runner import EVAL_PREFIX
from workbench.harness.zygote_handle import HOME_PREFIX


def _home(tmp, name, owner=None, age_s=0.0):
    home = tmp / f"{HOME_PREFIX}{name}"
    (home / "work").mkdir(parents=True)
    (home / "work" / "left.txt").write_text("an eval's file")
    if owner is not None:
        (home / "owner").write_text(owner)
    if age_s:
        then = time.time() - age_s
        os.utime(home, (then, then))
    return home


def test_only_the_homes_of_gone_checkers_are_removed(tmp_path):
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(ended.stdout)
    me = f"{os.getpid()} {started(os.getpid())}"
    homes = {
        "alive": _home(tmp_path, "alive", me),
        "dead": _home(tmp_path, "dead", f"{dead_pid} 12345"),
        "pid-reused": _home(tmp_path, "reused", f"{os.getpid()} 1"),  # our pid, another process's start
        "being-made": _home(tmp_path, "new"),  # no owner yet: mkdtemp and the owner's line are two steps
        "old-unowned": _home(tmp_path, "old", age_s=UNOWNED_GRACE_S + 60),
        "garbled": _home(tmp_path, "garbled", "not a pid"),
    }
    other = tmp_path / "workbench-something-else"
    other.mkdir()
    removed = set(remove_stale(HOME_PREFIX, tmp_path))
    assert removed == {homes["dead"], homes["pid-reused"], homes["old-unowned"], homes["garbled"]}
    assert all(not h.exists() for h in removed)
    assert homes["alive"].exists() and homes["being-made"].exists() and other.exists()


@contextlib.contextmanager
def _process_holding(tmp_path, code):
    """A process that runs `code` (which prints the folder it made, then sleeps) with tmp_path as its temporary
    directory; the folder is given while the process lives, and the process is killed (SIGKILL) on leaving."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", code + "import time\ntime.sleep(600)\n"], stdout=subprocess.PIPE,
                            text=True, env=env)  # fmt: skip
    try:
        yield tmp_path / os.path.basename(proc.stdout.readline().strip())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


@pytest.mark.skipif(not sandbox.confinement().works, reason="needs bubblewrap")
def test_a_killed_checkers_zygote_home_is_removed_by_the_next_one(tmp_path):
    code = (
        "from workbench.harness.worker_handle import worker_limits\n"
        "from workbench.harness.zygote_handle import Zygote\n"
        "print(Zygote(worker_limits('interpret')).home, flush=True)\n"
    )
    with _process_holding(tmp_path, code) as home:
        assert home.is_dir() and home.name.startswith(HOME_PREFIX)
        assert remove_stale(HOME_PREFIX, tmp_path) == [] and home.exists()  # its checker is alive
    assert home.exists()  # nothing of the killed checker removed it
    assert remove_stale(HOME_PREFIX, tmp_path) == [home] and not home.exists()


def test_a_killed_processs_eval_folder_is_removed_by_its_next_eval_folder(tmp_path, monkeypatch):
    """What a session process killed mid-eval left (its private copy of the solution): the first eval folder a later
    process makes removes it; a live process's folder stays."""
    code = f"from workbench.harness.owned_tmp import owned_dir\nprint(owned_dir({EVAL_PREFIX!r}), flush=True)\n"
    with _process_holding(tmp_path, code) as left:
        (left / "solution").mkdir()
        (left / "solution" / "solution.py").write_text("# a private copy\n")
    import workbench.harness.owned_tmp as owned_tmp

    monkeypatch.setattr(owned_tmp, "_swept", set())  # this process has made none yet
    monkeypatch.setattr(owned_tmp.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(owned_tmp.tempfile, "tempdir", str(tmp_path))
    mine = owned_dir(EVAL_PREFIX)
    assert not left.exists() and mine.is_dir() and (mine / "owner").is_file()
    second = owned_dir(EVAL_PREFIX)  # the sweep is once a process: a second folder removes nothing
    assert mine.exists() and second.exists()
