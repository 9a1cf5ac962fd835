"""End to end: `workbench` in a real terminal (tmux), driven by key presses, read off the screen."""

import os
import shutil
import subprocess
import sys
import time

import pytest
from conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
SOCKET = f"workbench-test-{os.getpid()}"  # set again per test: a server being killed can swallow a new session


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False).stdout


def screen() -> str:
    return tmux("capture-pane", "-t", "wb", "-p")


def wait_for(*texts: str, timeout: float = 60.0) -> str:
    """The screen once it shows every one of `texts` at once: the app's first frames can be drawn before it has
    its terminal's size, so one text seen in a transient frame says nothing about the rest."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen()
        if all(text in shown for text in texts):
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{texts!r} never all appeared; the screen:\n{screen()}")


@pytest.fixture(params=[(160, 45), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
def app(request):
    """The app in a tmux pane of a wide terminal and of a common window's size."""
    global SOCKET
    width, height = request.param
    SOCKET = f"workbench-test-{os.getpid()}-{width}x{height}"
    # a detached session is sometimes made at tmux's default 80x24 whatever -x/-y say, and a resize that lands
    # while the app starts can leave it drawn at the old size: the pane waits for its size before starting the app
    wait_size = f'until [ "$(stty size)" = "{height} {width}" ]; do sleep 0.1; done'
    app = f"cd {REPO} && WORKBENCH_SESSIONS={REPO / 'sessions'} {sys.executable} -m workbench; sleep 30"
    tmux("new-session", "-d", "-s", "wb", "-x", str(width), "-y", str(height), f"{wait_size}; {app}")
    deadline = time.monotonic() + 30
    while tmux("display", "-p", "-t", "wb", "#{window_width}x#{window_height}").strip() != f"{width}x{height}":
        assert time.monotonic() < deadline, "tmux never gave the window its size"
        tmux("resize-window", "-t", "wb", "-x", str(width), "-y", str(height))
        time.sleep(0.1)
    yield
    tmux("kill-server")


def test_home_replay_and_quit_in_a_real_terminal(app):
    wait_for("causal_conv1d", "rmsnorm_residual", "Sessions", "submitted")  # the first task, the saved sessions
    tmux("send-keys", "-t", "wb", "Tab")
    tmux("send-keys", "-t", "wb", "Down")  # newest first: the person's session, then the guided demo
    tmux("send-keys", "-t", "wb", "o")
    replay = wait_for("— replay")
    assert "sliding_window_max-guided-L123" in replay and "turn 6/6" in replay
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
