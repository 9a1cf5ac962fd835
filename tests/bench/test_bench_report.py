"""The report's arithmetic on synthetic logs (test data with known latencies): Sperf, baselines, judge
means, the ablation, turns and tokens, and `untimed` for sessions run in the interpreter."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
from pathlib import Path

import pytest
from bench_synthetic import eval_result, judgement, write_session

from workbench.bench.cli import main
from workbench.bench.report import build_report

USAGE = {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 1000, "cache_write_tokens": 50}
M1, M2 = "x:m1", "x:m2"


def _write(root: Path, model: str, condition: str, levels: list[int], task: str, subs: list, judged=None) -> None:
    key = f"{task}--{model.replace(':', '_')}--{condition}--s1"
    write_session(root, key, task, model, levels, "cuda", subs, USAGE, 0.01, judged)


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    ok = lambda task, lat: eval_result(task, True, lat)  # noqa: E731
    bad = lambda task: eval_result(task, False, None)  # noqa: E731
    _write(root, M1, "unguided", [], "A", [(1, ok("A", {"w1": 1.0, "w2": 1.0})), (2, ok("A", {"w1": 0.5, "w2": 0.25}))],
           judgement("A", (60, 30, 0), (90, 60, 30)))  # fmt: skip
    _write(
        root, M1, "unguided", [], "B", [(3, bad("B")), (4, ok("B", {"w1": 0.5}))], judgement("B", (30,) * 3, (0,) * 3)
    )
    _write(root, M1, "all", [1, 2, 3], "A", [(1, ok("A", {"w1": 0.25, "w2": 0.25}))])
    _write(root, M1, "all", [1, 2, 3], "B", [(2, ok("B", {"w1": 0.5}))])
    _write(root, M1, "L1", [1], "A", [(1, ok("A", {"w1": 1.0, "w2": 1.0}))])
    _write(root, M1, "L1", [1], "B", [(1, ok("B", {"w1": 1.0}))])
    _write(root, M2, "unguided", [], "A", [(1, bad("A"))])
    _write(root, M2, "unguided", [], "B", [(1, ok("B", {"w1": 1 / 3}))])
    _write(root, M2, "all", [1, 2, 3], "A", [(5, ok("A", {"w1": 1.0, "w2": 1.0}))])
    _write(root, M2, "all", [1, 2, 3], "B", [(1, bad("B"))])
    return tmp_path


def _rows(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open() as handle:
        return {(r["model"], r["condition"]): r for r in csv.DictReader(handle)}


def test_sperf_and_friends_are_exact(bench: Path) -> None:
    assert main(["report", str(bench), "--out", str(bench / "out")]) == 0
    sperf = _rows(bench / "out" / "sperf.csv")
    a_m1 = math.sqrt(2 * 4)  # best correct submission of A: speedups 2x and 4x
    assert float(sperf[(M1, "unguided")]["sperf"]) == pytest.approx(math.sqrt(a_m1 * 2))
    assert float(sperf[(M1, "all")]["sperf"]) == pytest.approx(math.sqrt(4 * 2))
    assert float(sperf[(M2, "unguided")]["sperf"]) == pytest.approx(math.sqrt(0.5 * 3))  # incorrect A counts 0.5
    assert float(sperf[(M2, "all")]["sperf"]) == pytest.approx(math.sqrt(1 * 0.5))
    assert float(sperf[("all models", "unguided")]["sperf"]) == pytest.approx((a_m1 * 2 * 0.5 * 3) ** 0.25)

    all_correct = _rows(bench / "out" / "all_correct.csv")
    assert set(all_correct) == {(M1, "unguided"), (M1, "all"), (M1, "L1")}
    assert float(all_correct[(M1, "L1")]["speedup"]) == pytest.approx(1.0)

    ablation = _rows(bench / "out" / "ablation.csv")
    assert float(ablation[(M1, "all")]["sperf_vs_unguided"]) == pytest.approx(math.sqrt(8) / math.sqrt(a_m1 * 2))
    assert float(ablation[(M2, "all")]["correct_rate"]) == 0.5

    judge = _rows(bench / "out" / "judge.csv")[(M1, "unguided")]
    assert (float(judge["js_design"]), float(judge["js_impl"])) == (30.0, 30.0)
    assert (float(judge["design_L1"]), float(judge["impl_L3"])) == (45.0, 15.0)
    assert _rows(bench / "out" / "judge.csv")[(M1, "all")]["js_design"] == ""  # never judged

    turns = _rows(bench / "out" / "turns.csv")
    assert float(turns[(M1, "unguided")]["mean_turns"]) == (1 + 4) / 2
    assert float(turns[(M2, "all")]["mean_turns"]) == 5

    tokens = _rows(bench / "out" / "tokens.csv")[(M1, "unguided")]  # 2 + 4 turns, one response each
    assert int(tokens["cache_read_tokens"]) == 6 * 1000 and int(tokens["input_tokens"]) == 6 * 100
    assert float(tokens["cost_usd"]) == pytest.approx(0.06)
    assert (bench / "out" / "report.md").read_text().count("## ") >= 7
    if importlib.util.find_spec("matplotlib") is not None:  # plots are optional
        assert (bench / "out" / "speedup_by_condition.png").stat().st_size > 0


def test_speedups_against_a_baseline_file_and_a_baseline_run(bench: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"source": "test", "tasks": {"A": {"w1": 1.0, "w2": 1.0}, "B": {"w1": 2.0}}}))
    report = build_report(bench, baseline)
    sperf = {(r[0], r[1]): r[4] for r in report.table("sperf").rows}
    assert sperf[(M1, "unguided")] == pytest.approx(math.sqrt(math.sqrt(8) * 4))  # B: 2.0 ms / 0.5 ms

    # a baseline run: its first correct submissions' latencies (median over its sessions per task)
    runs = tmp_path / "baseline_run"
    first, later = eval_result("A", True, {"w1": 2.0, "w2": 0.5}), eval_result("A", True, {"w1": 0.1, "w2": 0.1})
    write_session(runs, "A--x_b--unguided--s1", "A", "x:b", [], "cuda", [(1, first), (2, later)], USAGE, None)
    write_session(runs, "B--x_b--unguided--s1", "B", "x:b", [], "cuda", [(1, eval_result("B", True, {"w1": 1.0}))],
                  USAGE, None)  # fmt: skip
    sperf = {(r[0], r[1]): r[4] for r in build_report(bench, runs).table("sperf").rows}
    a_speedup = math.sqrt((2.0 / 0.5) * (0.5 / 0.25))  # the best of A's two correct submissions
    assert sperf[(M1, "unguided")] == pytest.approx(math.sqrt(a_speedup * 1.0 / 0.5))


def test_interpreter_sessions_are_untimed_not_scored(tmp_path: Path) -> None:
    write_session(tmp_path, "A--x_m--unguided--s1", "A", M1, [], "interpret", [(1, eval_result("A", True, None))],
                  USAGE, None)  # fmt: skip
    write_session(tmp_path, "B--x_m--unguided--s1", "B", M1, [], "interpret", [(1, eval_result("B", False, None))],
                  USAGE, None)  # fmt: skip
    report = build_report(tmp_path)
    assert [r[4] for r in report.table("sperf").rows] == ["untimed", "untimed"]
    assert report.table("tokens").rows[0][7] is None  # no price known: no cost invented
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    assert "untimed" in (tmp_path / "out" / "report.md").read_text()


def test_the_scored_submission_follows_each_sessions_rule_and_auto_is_marked(tmp_path: Path) -> None:
    fast, broken = eval_result("A", True, {"w1": 0.25}), eval_result("A", False, None)
    subs = [(1, fast), (2, broken)]  # a correct 4x submission, then a broken last one
    write_session(tmp_path, "A--x_m1--unguided--s1", "A", M1, [], "cuda", subs, USAGE, None, scoring="final")
    write_session(tmp_path, "A--x_m1--all--s1", "A", M1, [1, 2, 3], "cuda", subs, USAGE, None, scoring="best")
    write_session(tmp_path, "A--x_m2--unguided--s1", "A", M2, [], "cuda", subs, USAGE, None)  # no rule: final
    auto = [(1, broken), (3, eval_result("A", True, {"w1": 0.5}), "auto")]
    write_session(tmp_path, "A--x_m2--all--s1", "A", M2, [1, 2, 3], "cuda", auto, USAGE, None, scoring="final")
    report = build_report(tmp_path)
    sperf = {(r[0], r[1]): r[4] for r in report.table("sperf").rows}
    assert sperf[(M1, "unguided")] == pytest.approx(0.5)  # final: the broken last submission counts
    assert sperf[(M1, "all")] == pytest.approx(4.0)  # best: the correct 4x one
    assert sperf[(M2, "unguided")] == pytest.approx(0.5)  # an older log: final, the paper's rule
    assert sperf[(M2, "all")] == pytest.approx(2.0)  # the automatic submission of the best correct evaluation
    correctness = {(r[0], r[1]): r for r in report.table("correctness").rows}
    assert correctness[(M2, "all")][3:] == [1, 1.0, 1] and correctness[(M1, "unguided")][3:] == [0, 0.0, 0]
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    assert (
        "Which submission counts: the best correct one (rule best) in 1 sessions; the last submission (rule "
        "final, the paper's) in 3 sessions; an incorrect one scores 0.5 as a speedup."
    ) in text
    assert "Scored on an automatic submission (1: " in text and "by auto): A--x_m2--all--s1." in text
