"""End to end: `workbench` in a real terminal (tmux), driven by key presses, read off the screen."""

import os
import shutil
import subprocess
import sys
import time

import pytest
from conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
SOCKET = f"workbench-test-{os.getpid()}"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False).stdout


def screen() -> str:
    return tmux("capture-pane", "-t", "wb", "-p")


def wait_for(text: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen()
        if text in shown:
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen:\n{screen()}")


@pytest.fixture(params=[(160, 45), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
def app(request):
    """The app in a tmux pane of a wide terminal and of a common window's size."""
    width, height = request.param
    # a detached session is sometimes made at tmux's default 80x24 whatever -x/-y say, and a resize that lands
    # while the app starts can leave it drawn at the old size: the pane waits for its size before starting the app
    wait_size = f'until [ "$(stty size)" = "{height} {width}" ]; do sleep 0.1; done'
    app = f"cd {REPO} && WORKBENCH_SESSIONS={REPO / 'sessions'} {sys.executable} -m workbench; sleep 30"
    tmux("new-session", "-d", "-s", "wb", "-x", str(width), "-y", str(height), f"{wait_size}; {app}")
    tmux("resize-window", "-t", "wb", "-x", str(width), "-y", str(height))
    yield
    tmux("kill-server")


def test_home_replay_and_quit_in_a_real_terminal(app):
    home = wait_for("submitted")  # the saved sessions are listed once the tasks are
    assert "causal_conv1d" in home and "rmsnorm_residual" in home and "Sessions" in home, home  # first task, a session
    tmux("send-keys", "-t", "wb", "Tab")
    tmux("send-keys", "-t", "wb", "o")
    replay = wait_for("— replay")
    assert "turn 6/6" in replay
    tmux("send-keys", "-t", "wb", "Home")
    wait_for("turn 0/6")
    tmux("send-keys", "-t", "wb", "]")
    assert "read_file" in wait_for("turn 1/6")
    tmux("send-keys", "-t", "wb", "Escape")
    wait_for("Tasks — best correct speedup")
    tmux("send-keys", "-t", "wb", "q")
    deadline = time.monotonic() + 20
    while "D2K Workbench" in screen() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "D2K Workbench" not in screen()  # the app quit; the shell's sleep keeps the pane for us to read
