"""The session cap and the bench's cost cap, with a scripted model priced through the prices file ($1 a turn): the
session cap ends a session at the first turn at or over it; the bench cap stops the running session cleanly
(recorded as stopped by the cap, resumable, neither done nor failed), starts no other, and `--resume` with a higher
cap goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_fixtures import KERNEL, make_root

from workbench.bench.cli import main

TEXT = "Looking at the template once more before I change anything; " * 4  # streamed in ~10 pieces


USAGE = {"input_tokens": 10, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}


def _turn(i: int, *calls: dict, delay: float) -> dict:
    return {"content": [{"type": "text", "text": TEXT}, *calls], "delay_s": delay, "usage": USAGE}


def _call(i: int, name: str, **args: object) -> dict:
    return {"type": "tool_use", "id": f"toolu_{i:03}", "name": name, "input": args}


def _script(tmp: Path, delay: float) -> Path:
    turns = [_turn(i, _call(i, "read_file", path="solution.py"), delay=delay) for i in range(1, 5)]
    turns.append(_turn(5, _call(5, "write_file", path="solution.py", content=KERNEL), _call(6, "submit", final=True),
                       delay=delay))  # fmt: skip
    path = tmp / f"slow_{delay}.json"
    path.write_text(json.dumps(turns))
    return path


@pytest.fixture
def priced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WORKBENCH_ROOT", str(make_root(tmp_path)))
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."slow"]\ninput = 100000.0\noutput = 0\n')  # 10 input tokens a turn: $1.00
    monkeypatch.setenv("WORKBENCH_PRICES", str(prices))
    return tmp_path


def _argv(script: Path, out: Path, *extra: str) -> list[str]:
    return ["bench", "--tasks", "scale_add", "scale_add2", "--models", "scripted:slow", "--script", f"slow={script}",
            "--conditions", "unguided", "--budget", "5", "--mode", "interpret", "--parallel", "1",
            "--allow-unconfined", "--out", str(out), *extra]  # fmt: skip


def _events(bench: Path, task: str) -> list[dict]:
    (log,) = (bench / "sessions").glob(f"{task}--*/*/events.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_the_session_cap_ends_a_session_at_the_first_turn_over_it(priced: Path) -> None:
    bench = priced / "bench"
    assert main(_argv(_script(priced, 0.0), bench, "--max-cost", "2.5")) == 0  # sessions end on their cap: done
    for task in ("scale_add", "scale_add2"):
        events = _events(bench, task)
        end = events[-1]
        assert end["kind"] == "session_end" and end["reason"] == "budget"
        assert end["turns"] == 3 and end["cost"] == pytest.approx(3.0)  # $3.00 after turn 3: no fourth turn
        assert events[0]["cost_limit_usd"] == 2.5


def test_the_bench_cap_stops_cleanly_and_a_higher_cap_resumes(priced: Path, capsys: pytest.CaptureFixture) -> None:
    bench, script = priced / "bench", _script(priced, 0.1)  # ~1 s a turn: the cap lands inside the first session
    assert main(_argv(script, bench, "--max-bench-cost", "2.5", "--max-cost", "10")) == 1
    err = capsys.readouterr().err
    first = _events(bench, "scale_add")
    assert first[-1]["kind"] == "session_end" and first[-1]["reason"] == "interrupted"  # stopped cleanly
    assert 3 <= first[-1]["turns"] < 5
    assert not list((bench / "sessions").glob("scale_add2--*/*/events.jsonl"))  # never started
    stops = [json.loads(line) for line in (bench / "stopped.jsonl").read_text().splitlines()]
    assert [s["key"] for s in stops] == ["scale_add--scripted_slow--unguided--s1"] and stops[0]["bench_cap_usd"] == 2.5
    assert "0/2 done, 0 running, 0 failed, 1 stopped by the cost cap" in err
    assert "of the $2.50 bench cap, costliest session $3.00 of the $10.00 session cap" in err
    assert "bench stopped by its cost cap" in err and "--max-bench-cost USD" in err

    assert main(["bench", "--resume", str(bench), "--max-bench-cost", "1.5", "--allow-unconfined"]) == 1
    assert _events(bench, "scale_add")[-1]["reason"] == "interrupted"  # a cap already spent: nothing more runs

    assert main(["report", str(bench), "--out", str(priced / "report")]) == 0
    assert (
        "stopped by the bench's cost cap (a higher --max-bench-cost resumes them): "
        "scale_add--scripted_slow--unguided--s1."
    ) in (priced / "report" / "report.md").read_text()

    assert main(["bench", "--resume", str(bench), "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert "0 finished, 0 partial, 1 stopped by the bench's cost cap, 1 not started" in dry
    assert "scale_add--scripted_slow--unguided--s1: stopped," in dry

    assert main(["bench", "--resume", str(bench), "--max-bench-cost", "100", "--allow-unconfined"]) == 0
    err = capsys.readouterr().err
    assert "2/2 done" in err and "$10.00 spent of the $100.00 bench cap" in err
    first = _events(bench, "scale_add")
    assert any(e["kind"] == "session_resumed" for e in first)
    assert first[-1]["reason"] == "submitted" and first[-1]["turns"] == 5
    assert _events(bench, "scale_add2")[-1]["reason"] == "submitted"
