"""The GPU lock's semantics on plain files: shared holders overlap, an exclusive holder excludes
everyone, and a waiting exclusive holder is not starved by shared ones arriving after it."""

import multiprocessing as mp
import time

from workbench.harness.lock import GpuUse


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
