"""benchmarks/sol_check.py can fail and cannot stop early: an expert over 100% of SOL is flagged and the exit status
says so, a task that raises is recorded with its error while the others run, and the JSON goes where it is told."""

import importlib.util
import json
import sys

from conftest import REPO

from workbench.harness.result import EvalResult, Latency, StaticResult, WorkloadResult

spec = importlib.util.spec_from_file_location("sol_check", REPO / "benchmarks" / "sol_check.py")
sol_check = importlib.util.module_from_spec(spec)
sys.modules["sol_check"] = sol_check
spec.loader.exec_module(sol_check)


def _workload(name: str, latency_ms: float, sol_ms: float, binding: str) -> WorkloadResult:
    return WorkloadResult(name, correct=True, latency_ms=Latency(latency_ms, latency_ms, 0.0, 10), sol_ms=sol_ms,
                          sol_fraction=sol_ms / latency_ms, sol_binding=binding)  # fmt: skip


def _result(task: str, *workloads: WorkloadResult) -> EvalResult:
    return EvalResult(task, "expert.py", "", None, StaticResult(ok=True), list(workloads)).finish()


def test_an_expert_over_sol_is_flagged_and_one_under_is_not():
    rows = sol_check.rows_of("t", _result("t", _workload("fast", 1.0, 1.2, "sfu"), _workload("ok", 1.0, 0.5, "hbm")))
    assert [(r["workload"], r["sol_binding"], r["flag"]) for r in rows] == [("fast", "sfu", "OVER 100%"),
                                                                           ("ok", "hbm", "")]  # fmt: skip
    assert "OVER 100%" in "\n".join(sol_check.table([{"task": "t", "rows": rows}]))


def test_a_failed_task_is_flagged_while_the_others_run_and_the_json_goes_where_told(tmp_path, monkeypatch):
    def fake_expert(name, budget):
        if name == "histogram":
            return {"task": name, "error": "RuntimeError: out of memory", "rows": []}
        return {
            "task": name,
            "error": None,
            "rows": sol_check.rows_of(name, _result(name, _workload("w", 1, 0.5, "hbm"))),
        }

    monkeypatch.setattr(sol_check, "fresh_ceilings", lambda keep: {"bandwidth_gbps": 4000.0, "gpu": "NVIDIA H200"})
    monkeypatch.setattr(sol_check, "evaluate_expert", fake_expert)
    out = tmp_path / "sub" / "sol.json"
    status = sol_check.main([str(out), "--tasks", "swiglu", "histogram", "--jobs", "2"])
    doc = json.loads(out.read_text())
    assert sorted(t["task"] for t in doc["tasks"]) == ["histogram", "swiglu"]
    assert status == 1  # the failed task counts
    assert doc["datasheet"]["bandwidth_gbps"] == 4800.0
    assert sol_check.main([str(out), "--tasks", "swiglu"]) == 0


def test_evaluate_expert_turns_any_failure_into_the_task_record(monkeypatch):
    import workbench.harness as harness

    def broken(*args, **kwargs):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(harness, "evaluate", broken)
    record = sol_check.evaluate_expert("swiglu", 0.1)
    assert record["rows"] == [] and "illegal memory access" in record["error"]


def test_an_unknown_task_is_a_usage_error(tmp_path, capsys):
    assert sol_check.main([str(tmp_path / "x.json"), "--tasks", "no_such_task"]) == 2
    assert "no task 'no_such_task'" in capsys.readouterr().err
