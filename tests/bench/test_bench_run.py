"""A small bench end to end in the interpreter: 2 tasks x 2 scripted models x unguided/all, killed with
SIGKILL mid-run and resumed; no finished session runs twice, and the report's numbers are those the test
reads from the logs itself. The same bench through a local Ray instance gives the same report."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bench_fixtures import bench_argv, make_root, make_scripts

from workbench.bench.cli import main

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _logs(bench: Path) -> dict[str, Path]:
    return {p.parent.parent.name: p for p in (bench / "sessions").glob("*/*/events.jsonl")}


def _events(path: Path) -> list[dict]:
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line torn by the kill
    return events


def _live(events: list[dict]) -> list[dict]:
    """The log as resume sees it, computed here without the workbench's reader."""
    dropped = {s for e in events if e["kind"] == "session_resumed" and e["discarded"] for s in range(*e["discarded"])}
    return [e for e in events if e["seq"] not in dropped]


def _ended(path: Path) -> bool:
    return any(e["kind"] == "session_end" for e in _events(path))


def _kill_mid_run(argv: list[str], env: dict[str, str], bench: Path) -> dict[str, bytes]:
    """Run the bench in a child process, SIGKILL its process group once a session finished and another is
    under way; the logs of the sessions that had ended by then."""
    child = subprocess.Popen([sys.executable, "-m", "workbench.bench.cli", *argv], env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            logs = _logs(bench) if (bench / "sessions").is_dir() else {}
            ended = [p for p in logs.values() if _ended(p)]
            if ended and any(p.stat().st_size and not _ended(p) for p in logs.values()):
                break
            assert child.poll() is None, "the bench ended before it could be killed"
            time.sleep(0.05)
        else:
            pytest.fail("no session finished while another ran")
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    return {key: path.read_bytes() for key, path in _logs(bench).items() if _ended(path)}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("bench")
    root, scripts = make_root(tmp), make_scripts(tmp)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_ROOT", str(root))
        bench = tmp / "bench"
        finished_before = _kill_mid_run(bench_argv(scripts, bench), {**os.environ}, bench)
        assert main(bench_argv(scripts, bench)) == 0  # the same command continues where it stopped
        after_rerun = {key: path.read_bytes() for key, path in _logs(bench).items()}
        assert main(["bench", "--resume", str(bench)]) == 0  # nothing left: nothing runs
        assert main(["report", str(bench), "--out", str(tmp / "report")]) == 0
        yield {"tmp": tmp, "bench": bench, "scripts": scripts, "finished_before": finished_before,
               "after_rerun": after_rerun, "report": tmp / "report"}  # fmt: skip


def test_resume_never_runs_a_finished_session_twice(world: dict) -> None:
    logs = _logs(world["bench"])
    assert len(logs) == 8 and len(list((world["bench"] / "sessions").glob("*/*/events.jsonl"))) == 8
    assert world["finished_before"], "the kill came before any session finished"
    for key, before in world["finished_before"].items():
        assert logs[key].read_bytes() == before, f"{key} ran again after it had finished"
    for key, path in logs.items():
        assert path.read_bytes() == world["after_rerun"][key], "--resume of a finished bench changed a log"
        live = _live(_events(path))
        assert [e["kind"] for e in live].count("session_end") == 1 and live[-1]["kind"] == "session_end"
    resumed = [k for k, p in logs.items() if any(e["kind"] == "session_resumed" for e in _events(p))]
    assert resumed, "the session the kill cut short was not resumed from its log"
    assert not set(resumed) & set(world["finished_before"])


def _csv(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open() as handle:
        return {(r["model"], r["condition"]): r for r in csv.DictReader(handle)}


def _group(path: Path) -> tuple[str, str]:
    """The report row a session's log counts in: (model, condition)."""
    start = _events(path)[0]
    return f"scripted:{start['model']}", "all" if start["levels"] == [1, 2, 3] else "unguided"


def test_report_numbers_are_the_logs_numbers(world: dict) -> None:
    expected: dict[tuple[str, str], dict] = {}
    for path in _logs(world["bench"]).values():
        events = _events(path)
        live = _live(events)
        group = expected.setdefault(_group(path), {"n": 0, "correct": 0, "turns": [], "tokens": [0] * 4})
        group["n"] += 1
        correct = [e["turn"] for e in live if e["kind"] == "submission" and e["result"]["correct"]]
        group["correct"] += bool(correct)
        group["turns"] += correct[:1]
        for e in live:
            if e["kind"] == "model_response":
                group["tokens"] = [t + e["usage"][f] for t, f in zip(group["tokens"], USAGE_FIELDS)]
    correctness, turns = _csv(world["report"] / "correctness.csv"), _csv(world["report"] / "turns.csv")
    tokens, sperf = _csv(world["report"] / "tokens.csv"), _csv(world["report"] / "sperf.csv")
    assert set(correctness) == set(expected) == {(m, c) for m in ("scripted:good", "scripted:bad")
                                                 for c in ("unguided", "all")}  # fmt: skip
    for key, want in expected.items():
        assert (int(correctness[key]["sessions"]), int(correctness[key]["correct"])) == (want["n"], want["correct"])
        mean_turns = sum(want["turns"]) / len(want["turns"]) if want["turns"] else None
        assert (float(turns[key]["mean_turns"]) if turns[key]["mean_turns"] else None) == mean_turns
        assert [int(tokens[key][f]) for f in USAGE_FIELDS] == want["tokens"]
        assert tokens[key]["cost_usd"] == ""  # scripted: no price, no invented cost
    assert expected[("scripted:good", "all")]["correct"] == 2 and expected[("scripted:bad", "all")]["correct"] == 0
    assert sperf[("scripted:good", "unguided")]["sperf"] == "untimed"  # the interpreter times nothing
    assert float(sperf[("scripted:bad", "unguided")]["sperf"]) == 0.5


def test_the_same_bench_on_ray_gives_the_same_report(world: dict) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray)")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # a sandbox without the ports or shared memory Ray needs
        pytest.skip(f"a local Ray instance cannot start here: {type(exc).__name__}: {exc}")
    try:
        bench = world["tmp"] / "bench_ray"
        root = world["tmp"] / "root"
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("WORKBENCH_ROOT", str(root))
            assert main(bench_argv(world["scripts"], bench, "--ray", "local")) == 0
        assert len(_logs(bench)) == 8
        assert main(["report", str(bench), "--out", str(world["tmp"] / "report_ray")]) == 0
    finally:
        ray.shutdown()
    # The local bench was killed once and its cut session resumed; how much context the resumed conversation
    # re-sends depends on where the kill landed, so that group's token counts may differ from an uncut run (the
    # report's tokens are checked against the logs themselves above). Everything else must be equal.
    resumed = {_group(path) for path in _logs(world["bench"]).values()
               if any(e["kind"] == "session_resumed" for e in _events(path))}  # fmt: skip
    assert resumed
    for name in ("correctness", "sperf", "all_correct", "judge", "ablation", "turns", "tokens"):
        ours, local = (_csv(world["tmp"] / "report_ray" / f"{name}.csv"), _csv(world["report"] / f"{name}.csv"))
        for key, row in (*ours.items(), *local.items()):
            row.pop("discarded_responses", None)  # the local bench was killed mid-turn once; the Ray one was not
            if name == "tokens" and key in resumed:
                for field in USAGE_FIELDS:
                    row.pop(field)
        assert ours == local, name
