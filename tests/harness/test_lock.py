"""The GPU lock's semantics on plain files: shared holders overlap, an exclusive holder excludes
everyone, and a waiting exclusive holder is not starved by shared ones arriving after it."""

import functools
import multiprocessing as mp
import os
import time

import pytest

from workbench.harness.lock import GpuUse


class Holder:
    """A process that takes the lock (shared, or exclusive as a timer does) and holds it until released, noting in
    a log file shared by all holders, one whole line per append, when it had to wait, when it got in and when it
    let go: the file's line order is the order in which these happened."""

    def __init__(self, path, log, name, mode):
        self.name, self.release = name, _FORK.Event()
        self.process = _FORK.Process(target=self._run, args=(path, log, mode))
        self.process.start()

    def _run(self, path, log, mode):
        note = functools.partial(_note, log, self.name)
        use = GpuUse(path, on_wait=lambda waiting: note("wait" if waiting else "granted"))
        if mode == "shared":
            use.share()
            note("in")
            self.release.wait()
            note("out")
            return  # the process's end releases the shared hold
        with use.exclusive():
            note("in")
            self.release.wait()
            note("out")

    def let_go(self):
        self.release.set()


def _all_exit(*holders):
    """After every holder was let go (an exclusive one takes the lock shared again on leaving, so it may end only
    once the next exclusive holder has let go too)."""
    for holder in holders:
        holder.process.join(30)
        assert holder.process.exitcode == 0, f"{holder.name} did not exit"


_FORK = mp.get_context("fork")


def _note(log, name, what):
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, f"{name} {what} {time.monotonic_ns()}\n".encode())
    finally:
        os.close(fd)


def _events(log):
    return [" ".join(line.split()[:2]) for line in log.read_text().splitlines()] if log.exists() else []


def _first_of(log, *wanted, timeout_s=30.0):
    """Wait until one of the wanted events is in the log; return the one that came first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        seen = [e for e in _events(log) if e in wanted]
        if seen:
            return seen[0]
        time.sleep(0.01)
    raise AssertionError(f"none of {wanted} within {timeout_s} s: {_events(log)}")


def _before(log, first, then):
    events = _events(log)
    return events.index(first) < events.index(then)


@pytest.mark.parametrize("mode", ["shared", "exclusive"])
def test_an_exclusive_holder_keeps_everyone_out_until_it_lets_go(tmp_path, mode):
    path, log = tmp_path / "gpu.lock", tmp_path / "log"
    timer = Holder(path, log, "timer", "exclusive")
    assert _first_of(log, "timer in") == "timer in"
    other = Holder(path, log, "other", mode)
    assert _first_of(log, "other wait", "other in") == "other wait", "it got the GPU while another eval timed"
    timer.let_go()
    assert _first_of(log, "other in") == "other in"
    other.let_go()
    _all_exit(timer, other)
    assert _before(log, "timer out", "other granted") and _before(log, "other granted", "other in")


def test_shared_holders_overlap_and_exclusive_waits(tmp_path):
    path, log = tmp_path / "gpu.lock", tmp_path / "log"
    r1 = Holder(path, log, "r1", "shared")
    assert _first_of(log, "r1 in") == "r1 in"
    r2 = Holder(path, log, "r2", "shared")
    assert _first_of(log, "r2 wait", "r2 in") == "r2 in"  # in while r1 is: shared holders overlap
    timer = Holder(path, log, "w", "exclusive")
    assert _first_of(log, "w wait", "w in") == "w wait"
    r1.let_go()
    r2.let_go()
    assert _first_of(log, "w in") == "w in"
    timer.let_go()
    _all_exit(r1, r2, timer)
    assert _before(log, "r1 out", "w in") and _before(log, "r2 out", "w in")


def test_a_waiting_exclusive_holder_goes_before_later_shared_ones(tmp_path):
    path, log = tmp_path / "gpu.lock", tmp_path / "log"
    first = Holder(path, log, "r1", "shared")
    assert _first_of(log, "r1 in") == "r1 in"
    writer = Holder(path, log, "w", "exclusive")
    assert _first_of(log, "w wait", "w in") == "w wait"
    late = Holder(path, log, "r2", "shared")  # arrives while the writer waits for r1
    assert _first_of(log, "r2 wait", "r2 in") == "r2 wait", "a shared holder overtook the waiting exclusive one"
    first.let_go()
    assert _first_of(log, "w in", "r2 in") == "w in"
    writer.let_go()
    assert _first_of(log, "r2 in") == "r2 in"
    late.let_go()
    _all_exit(first, writer, late)
    assert _before(log, "w out", "r2 in")
