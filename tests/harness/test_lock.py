"""The GPU lock's semantics on plain files: shared holders overlap, an exclusive holder excludes
everyone, and a waiting exclusive holder is not starved by shared ones arriving after it."""

import fcntl
import multiprocessing as mp
import os
import subprocess
import sys
import threading
import time

import pytest

from workbench.harness.lock import Cancelled, GpuUse, lock_path
from workbench.harness.runner import _gpu_hold


def _hold(path, shared, seconds, log, name):
    """An eval's child: it holds the GPU shared from the start; a timer then wants it alone."""
    use = GpuUse(path)
    use.share()
    if shared:
        log.put((name, "in", time.monotonic()))
        time.sleep(seconds)
        log.put((name, "out", time.monotonic()))
        return
    with use.exclusive():
        log.put((name, "in", time.monotonic()))
        time.sleep(seconds)
        log.put((name, "out", time.monotonic()))


def _intervals(log, count):
    events = [log.get(timeout=30) for _ in range(count * 2)]
    spans = {}
    for name, what, at in events:
        spans.setdefault(name, {})[what] = at
    return {name: (s["in"], s["out"]) for name, s in spans.items()}


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]


def _start(path, shared, seconds, log, name):
    p = mp.get_context("fork").Process(target=_hold, args=(path, shared, seconds, log, name))
    p.start()
    return p


def test_shared_holders_overlap_and_exclusive_waits(tmp_path):
    path, log = tmp_path / "gpu.lock", mp.get_context("fork").Queue()
    procs = [_start(path, True, 0.6, log, "r1"), _start(path, True, 0.6, log, "r2")]
    time.sleep(0.2)
    procs.append(_start(path, False, 0.1, log, "w"))
    for p in procs:
        p.join(10)
    spans = _intervals(log, 3)
    assert _overlap(spans["r1"], spans["r2"])
    assert not _overlap(spans["w"], spans["r1"]) and not _overlap(spans["w"], spans["r2"])


def test_a_waiting_exclusive_holder_goes_before_later_shared_ones(tmp_path):
    path, log = tmp_path / "gpu.lock", mp.get_context("fork").Queue()
    first = _start(path, True, 0.8, log, "r1")
    time.sleep(0.2)
    writer = _start(path, False, 0.3, log, "w")
    time.sleep(0.2)
    late = _start(path, True, 0.1, log, "r2")  # arrives while the writer waits for r1
    for p in (first, writer, late):
        p.join(10)
    spans = _intervals(log, 3)
    assert spans["w"][0] >= spans["r1"][1]
    assert spans["r2"][0] >= spans["w"][1], "a shared holder overtook the waiting exclusive one"


def _waits(path, log):
    use = GpuUse(path, on_wait=lambda waiting: log.put(("wait" if waiting else "held", time.monotonic())))
    use.share()
    with use.exclusive():
        log.put(("timing", time.monotonic()))


def test_a_timer_says_when_it_waits_and_when_it_has_the_gpu(tmp_path):
    path, log = tmp_path / "gpu.lock", mp.get_context("fork").Queue()
    reader = _start(path, True, 0.6, mp.get_context("fork").Queue(), "r")
    time.sleep(0.2)
    timer = mp.get_context("fork").Process(target=_waits, args=(path, log))
    timer.start()
    for p in (reader, timer):
        p.join(10)
    kinds = [log.get(timeout=10)[0] for _ in range(3)]
    assert kinds == ["wait", "held", "timing"]  # the shared hold came at once; the exclusive one waited


def _child_script(events, lines, pause_s):
    """A stand-in child: writes event lines with pauses, as a worker would."""
    import json as _json

    body = "; ".join(
        f"open({str(events)!r}, 'a').write({_json.dumps(line) + chr(10)!r}); time.sleep({pause_s})" for line in lines
    )
    return [sys.executable, "-c", f"import time; {body}"]


@pytest.mark.parametrize("waits", [True, False])
def test_time_waiting_for_the_gpu_does_not_count_against_the_timeout(tmp_path, waits):

    from workbench.harness.runner import _watch

    events = tmp_path / "events.jsonl"
    events.write_text("")
    middle = [{"event": "gpu_wait"}, {"event": "gpu_held"}] if waits else [{"event": "x"}, {"event": "y"}]
    lines = [{"event": "start", "workload": "w"}, *middle, {"event": "result"}]
    proc = subprocess.Popen(_child_script(events, lines, 0.8), start_new_session=True)
    killed = _watch(proc, events, timeout_s=1.2, startup_timeout_s=30)
    # without the wait, start -> result takes 2.4 s of a 1.2 s timeout; with it, no phase runs past 0.8 s
    assert killed is (not waits)


def test_the_child_inherits_the_shared_hold_its_parent_took_before_starting_it(tmp_path, monkeypatch):
    """An eval's parent takes the lock before the child exists (so the child's imports and CUDA start-up run under
    it); the child holds it through the inherited descriptor, and the parent's copy is gone once it is started."""

    monkeypatch.setenv("WORKBENCH_LOCK_DIR", str(tmp_path))
    child = (
        "import sys, time\n"
        "from workbench.harness.lock import GpuUse, lock_path\n"
        "use = GpuUse.inherited(lock_path())\n"
        "print('inherited' if use else 'none', flush=True)\n"
        "sys.stdin.readline()\n"  # hold until told to go
        "with use.exclusive():\n"
        "    print('exclusive', flush=True)\n"
    )
    env = dict(os.environ)
    with _gpu_hold("cuda", env) as fds:
        proc = subprocess.Popen(
            [sys.executable, "-c", child], env=env, pass_fds=fds, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
    assert proc.stdout.readline().strip() == "inherited"
    with open(lock_path(), "a+") as timer:
        with pytest.raises(BlockingIOError):  # the child still holds it shared, though the parent let go
            fcntl.flock(timer, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(timer, fcntl.LOCK_SH | fcntl.LOCK_NB)  # a shared holder beside it is fine
        fcntl.flock(timer, fcntl.LOCK_UN)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "exclusive"  # it can upgrade through the inherited descriptor
        assert proc.wait(30) == 0
        fcntl.flock(timer, fcntl.LOCK_EX | fcntl.LOCK_NB)  # and its exit released it


def test_no_lock_is_taken_or_handed_down_off_the_gpu():
    env: dict[str, str] = {}
    with _gpu_hold("interpret", env) as fds:
        assert fds == () and env == {}


def test_a_cancelled_eval_stops_waiting_for_the_lock_at_once(tmp_path, monkeypatch):
    """While another eval times (the lock held exclusively), an eval cancelled from the app gives up its wait
    instead of waiting out the other's timing."""

    monkeypatch.setenv("WORKBENCH_LOCK_DIR", str(tmp_path))
    cancel, outcome = threading.Event(), {}

    def wait_for_it():
        started = time.monotonic()
        try:
            with _gpu_hold("cuda", {}, cancel):
                outcome["got"] = True
        except Cancelled:
            outcome["cancelled_after"] = time.monotonic() - started

    with open(lock_path(), "a+") as timer:
        fcntl.flock(timer, fcntl.LOCK_EX)
        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        time.sleep(0.3)
        assert waiter.is_alive()  # still waiting: the lock is held
        cancel.set()
        waiter.join(timeout=5)
        assert not waiter.is_alive() and "got" not in outcome
        assert 0.3 <= outcome["cancelled_after"] < 2.0
    # and the gate it passed through is free again: a plain shared hold is granted at once
    with _gpu_hold("cuda", {}, threading.Event()) as fds:
        assert len(fds) == 1
