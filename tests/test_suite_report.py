"""`workbench suite`: reading a recorded GPU run (suite.json) and reporting it. The run here is
written by the test from eval results built by hand, so the figures are the test's own inputs."""

import json

import pytest
from conftest import FIXTURE_ROOT

from workbench.cli import main
from workbench.harness.result import DeviceInfo, EvalResult, Latency, StaticResult, WorkloadResult
from workbench.suite import (
    add_eval,
    latest_run,
    load_run,
    new_run_document,
    render_markdown,
    summary,
    workload_rows,
)
from workbench.tasks import load_task

DEVICE = DeviceInfo(name="Test GPU", capability="9.0", driver="1.0", torch="2.x", triton="3.x", mode="cuda")


def _result(latencies: dict[str, tuple[float, float] | None], correct: bool = True) -> dict:
    workloads = []
    for name, pair in latencies.items():
        w = WorkloadResult(name=name, correct=correct)
        if pair:
            sol, ref = pair
            w.latency_ms, w.reference_ms = Latency(sol, sol, 0.0, 10), Latency(ref, ref, 0.0, 10)
            w.speedup, w.sol_ms, w.sol_fraction = ref / sol, sol / 2, 0.5
        elif not correct:
            w.failure, w.error = "mismatch", "seed 1: 3 elements differ"
        workloads.append(w)
    r = EvalResult("scale_add", "x.py", "0", DEVICE, StaticResult(ok=True), workloads)
    return r.finish().to_dict()


def _write_run(folder, measured_at, rungs):
    doc = new_run_document(measured_at, "python benchmarks/suite_gpu.py --out X")
    for rung, result in rungs.items():
        add_eval(doc, "scale_add", rung, result)
    folder.mkdir(parents=True)
    (folder / "suite.json").write_text(json.dumps(doc))
    return folder / "suite.json"


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A project root with the fixture task and two recorded runs, the later one measured later."""
    import shutil

    shutil.copytree(FIXTURE_ROOT, tmp_path / "root")
    monkeypatch.setenv("WORKBENCH_ROOT", str(tmp_path / "root"))
    runs = tmp_path / "root" / "docs" / "runs"
    _write_run(runs / "b-old", "2026-01-01 00:00 UTC", {"expert": _result({"medium": (2.0, 4.0), "tiny": None})})
    _write_run(runs / "a-new", "2026-02-01 00:00 UTC", {
        "expert": _result({"medium": (1.0, 4.0), "tiny": None}),
        "plain": _result({"medium": (4.0, 4.0), "tiny": None}),
        "l1": _result({"medium": (2.0, 4.0), "tiny": None}),
    })  # fmt: skip
    return tmp_path / "root"


def test_latest_run_is_chosen_by_measurement_time_not_folder_name(root):
    assert latest_run(root).parent.name == "a-new"


def test_rows_carry_the_expert_and_each_ladder_rung(root):
    run = load_run(latest_run(root))
    rows = workload_rows(run, [load_task("scale_add")])
    assert [(r.workload, r.expert_ms, r.reference_ms, r.speedup) for r in rows] == [("medium", 1.0, 4.0, 4.0)]
    assert rows[0].ladder_ms == {"plain": 4.0, "l1": 2.0}
    assert summary(rows)["speedup_geomean"] == pytest.approx(4.0)


def test_an_incorrect_expert_is_reported_as_failed(tmp_path):
    path = _write_run(tmp_path / "r", "2026-03-01 00:00 UTC", {"expert": _result({"medium": None}, correct=False)})
    rows = workload_rows(load_run(path), [load_task("scale_add", FIXTURE_ROOT)])
    assert not rows[0].correct and "mismatch" in rows[0].error
    assert summary(rows)["workloads_failed"] == 1


def test_cli_prints_the_table_and_the_ladder_steps(root, capsys):
    assert main(["suite"]) == 0
    out = capsys.readouterr().out
    assert "Test GPU" in out and "2026-02-01" in out
    assert "| scale_add | medium | 4000.0 | 1000.0 | 4.00 | 50% |" in out
    assert "| 4000.0 | 2000.0 |  | 1000.0 | 2.00x |  |  |" in out  # plain -> l1 halves; no l1_l2 rung


def test_a_disturbed_expert_latency_is_marked_and_the_count_under_40_percent_stated(tmp_path):
    # one eval: 4 samples of 1.8 ms with a standard error of 0.8 ms (a disturbed sample), SOL 35%
    result = _result({"medium": (1.8, 4.0)})
    result["workloads"][0]["latency_ms"] = {"median": 1.8, "mean": 2.2, "err": 0.8, "n": 4}
    result["workloads"][0]["sol_fraction"] = 0.35
    path = _write_run(tmp_path / "r", "2026-03-01 00:00 UTC", {"expert": result})
    run = load_run(path)
    rows = workload_rows(run, [load_task("scale_add", FIXTURE_ROOT)])
    assert rows[0].uncertain and summary(rows)["under_40pct_sol"] == ["scale_add/medium"]
    text = render_markdown(run, rows)
    assert "| 1800.0 (±44%, n 4) |" in text and "SOL fraction 35.0%, 1 under 40% of SOL." in text
    assert "on 1 workload(s) the standard error" in text


def test_a_steady_latency_or_an_unknown_error_is_not_marked(tmp_path):
    steady, unknown = _result({"medium": (1.0, 4.0)}), _result({"medium": (1.0, 4.0)})
    steady["workloads"][0]["latency_ms"] = {"median": 1.0, "mean": 1.0, "err": 0.049, "n": 10}
    unknown["workloads"][0]["latency_ms"] = {"median": 1.0, "mean": 1.0, "err": "inf", "n": 2}
    for i, result in enumerate((steady, unknown)):
        run = load_run(_write_run(tmp_path / str(i), "2026-03-01 00:00 UTC", {"expert": result}))
        rows = workload_rows(run, [load_task("scale_add", FIXTURE_ROOT)])
        assert not rows[0].uncertain and "±" not in render_markdown(run, rows)


def test_cli_json_names_where_and_when(root, capsys):
    assert main(["suite", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["measured_at"] == "2026-02-01 00:00 UTC" and doc["device"]["name"] == "Test GPU"
    assert doc["workloads"][0]["ladder_ms"] == {"plain": 4.0, "l1": 2.0}


def test_no_run_and_a_bad_run_are_one_line_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WORKBENCH_ROOT", str(FIXTURE_ROOT))
    bad = tmp_path / "suite.json"
    bad.write_text("{not json")
    assert main(["suite", "--run", str(bad)]) == 2
    assert main(["suite", "--run", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("workbench: error:") for line in err)
    assert "not a suite run" in err[0] and "no suite run" in err[1]


def test_merging_a_merged_run_keeps_every_original_run_and_where_each_eval_came_from(tmp_path):
    from workbench.ladder_report import ladder_markdown
    from workbench.suite import merge_documents, render_markdown

    def run(measured_at, command, rungs):
        doc = new_run_document(measured_at, command)
        for rung, result in rungs.items():
            add_eval(doc, "scale_add", rung, result)
        return doc

    experts = run("2026-01-01 00:00 UTC", "experts", {"expert": _result({"medium": (2.0, 4.0)})})
    ladder = run("2026-01-02 00:00 UTC", "ladder", {"plain": _result({"medium": (8.0, 4.0)})})
    again = run("2026-01-03 00:00 UTC", "expert again", {"expert": _result({"medium": (1.0, 4.0)})})
    merged = merge_documents([merge_documents([experts, ladder]), again])
    assert [s["command"] for s in merged["sources"]] == ["experts", "ladder", "expert again"]
    assert {(e["rung"], e["source"]) for e in merged["evals"]} == {("plain", 1), ("expert", 2)}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(merged))
    text = render_markdown(load_run(path), workload_rows(load_run(path), [load_task("scale_add", FIXTURE_ROOT)]))
    assert "`experts`: all replaced by later runs" in text
    assert "`ladder`: the ladder rungs of 1 task(s)" in text and "`expert again`: the experts of 1 task(s)" in text
    assert "| scale_add | medium | 8000.0 |  |  | 1000.0 |" in text  # plain from run 2, the expert from run 3
    # a task's ladder says when its own evals were measured, not only the merge's latest time
    assert load_run(path).measured_at_of("scale_add") == ["2026-01-02 00:00 UTC", "2026-01-03 00:00 UTC"]
    assert load_run(path).measured_at_of("another_task") == ["2026-01-03 00:00 UTC"]  # none: the run's own time
    ladder_text = ladder_markdown(load_task("scale_add", FIXTURE_ROOT), load_run(path), None)
    assert "2026-01-02 00:00 UTC and 2026-01-03 00:00 UTC. Latencies" in ladder_text


def test_cli_task_prints_its_ladder_and_places_a_saved_eval_among_the_rungs(root, tmp_path, capsys):
    assert main(["suite", "--task", "scale_add"]) == 0
    out = capsys.readouterr().out
    assert "## Design ladder: scale_add" in out and "| medium | 4000.0 | 4000.0 | 2000.0 | 1000.0 |" in out
    assert "this eval" not in out  # no eval given: no column for one
    saved = _result({"medium": (3.0, 4.0), "tiny": None})  # an `eval --json` result on the same GPU
    (tmp_path / "mine.json").write_text(json.dumps(saved))
    assert main(["suite", "--task", "scale_add", "--eval", str(tmp_path / "mine.json")]) == 0
    out = capsys.readouterr().out
    assert "| medium | 4000.0 | 4000.0 | 2000.0 | 1000.0 | 3000.0 | faster than plain |" in out


def test_cli_task_errors_are_one_line(root, tmp_path, capsys):
    other = {**_result({"medium": (3.0, 4.0)}), "task": "rmsnorm_residual"}
    (tmp_path / "other.json").write_text(json.dumps(other))
    (tmp_path / "junk.json").write_text("[1, 2]")
    assert main(["suite", "--eval", str(tmp_path / "other.json")]) == 2
    assert main(["suite", "--task", "scale_add", "--eval", str(tmp_path / "other.json")]) == 2
    assert main(["suite", "--task", "scale_add", "--eval", str(tmp_path / "junk.json")]) == 2
    assert main(["suite", "--task", "no_such_task"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(line.startswith("workbench: error:") for line in err)
    assert "needs --task" in err[0] and "not 'scale_add'" in err[1] and "not an eval result" in err[2]


def test_a_split_run_goes_on_with_the_evals_that_are_missing_or_were_wrong():
    from workbench.suite import evals_done

    first = new_run_document("2026-03-01 12:00 UTC", "python benchmarks/suite_gpu.py --out A")
    add_eval(first, "scale_add", "expert", _result({"medium": (1.0, 4.0)}))
    add_eval(first, "scale_add", "plain", _result({"medium": (1.0, 4.0)}, correct=False))
    second = new_run_document("2026-03-01 12:10 UTC", "python benchmarks/suite_gpu.py --out B --skip-done A")
    add_eval(second, "other_task", "expert", _result({"medium": (1.0, 4.0)}))
    assert evals_done([first, second]) == {("scale_add", "expert"), ("other_task", "expert")}
    assert evals_done([]) == set()
