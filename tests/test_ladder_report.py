"""The Ladder tab's text: a task's recorded rungs beside a session's latest eval. The run is written by
the test from eval results built by hand, so every figure checked is the test's own input."""

import json
import shutil

from conftest import FIXTURE_ROOT

from workbench.harness.result import DeviceInfo, EvalResult, Latency, StaticResult, WorkloadResult
from workbench.ladder_report import ladder_markdown, recorded_run, standing
from workbench.suite import add_eval, load_run, new_run_document
from workbench.tasks import load_task

GPU = DeviceInfo(name="Test GPU", capability="9.0", driver="1.0", torch="2.x", triton="3.x", mode="cuda")


def _result(medium_ms: float, reference_ms: float | None = None) -> dict:
    w = WorkloadResult(name="medium", correct=True)
    w.latency_ms = Latency(medium_ms, medium_ms, 0.0, 10)
    if reference_ms:
        w.reference_ms, w.speedup, w.sol_fraction = Latency(reference_ms, reference_ms, 0.0, 10), 1.0, 0.5
    return EvalResult("scale_add", "x.py", "0", GPU, StaticResult(ok=True), [w]).finish().to_dict()


def _run(tmp_path, rungs: dict[str, dict]):
    doc = new_run_document("2026-03-01 12:00 UTC", "python benchmarks/suite_gpu.py --out X")
    for rung, result in rungs.items():
        add_eval(doc, "scale_add", rung, result)
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(doc))
    return load_run(path)


def _session(ms: float, device: str = "Test GPU", mode: str = "cuda") -> dict:
    return {"device": {"name": device, "mode": mode},
            "workloads": [{"name": "medium", "correct": True, "latency_ms": {"median": ms}}]}  # fmt: skip


def test_the_session_is_placed_among_the_rungs_it_beats(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)
    run = _run(tmp_path, {"expert": _result(1.0, 8.0), "plain": _result(4.0), "l1": _result(2.0)})
    text = ladder_markdown(task, run, _session(3.0))
    assert "| medium | 8000.0 | 4000.0 | 2000.0 | 1000.0 | 3000.0 | faster than plain |" in text
    assert "| medium | 2.00x | 2.00x |" in text  # plain -> L1, L1 -> expert
    assert "Test GPU (driver 1.0, torch 2.x, triton 3.x), 2026-03-01 12:00 UTC" in text
    assert "L1+L2" not in text  # a rung the run does not hold gets no column


def test_standing_names_the_rungs_beaten_even_when_the_rungs_are_not_in_order():
    rungs = [("plain", 4.0), ("l1", 5.0), ("l1_l2", 2.0), ("expert", 1.0)]
    assert standing(0.5, rungs) == "faster than every rung"
    assert standing(9.0, rungs) == "slower than every rung"
    assert standing(4.5, rungs) == "faster than L1"
    assert standing(3.0, rungs) == "faster than plain, L1"


def test_figures_from_another_device_or_the_interpreter_are_not_compared(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)
    run = _run(tmp_path, {"expert": _result(1.0, 8.0), "plain": _result(4.0)})
    other = ladder_markdown(task, run, _session(3.0, device="Other GPU"))
    assert "ran on Other GPU, the ladder on Test GPU" in other and "where the session stands" not in other
    assert "3000.0" not in other
    interpreted = ladder_markdown(task, run, {"device": {"name": "cpu", "mode": "interpret"}, "workloads": []})
    assert "not timed here (interpret mode" in interpreted
    assert "The session has no eval yet." in ladder_markdown(task, run, None)


def test_a_task_without_a_ladder_shows_its_expert_and_a_missing_run_says_so(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)
    text = ladder_markdown(task, _run(tmp_path, {"expert": _result(1.0, 8.0)}), None)
    assert "keeps no design ladder" in text and "| medium | 8000.0 | 1000.0 | – |" in text
    assert "No GPU run is recorded" in ladder_markdown(task, None, None)
    bad = tmp_path / "root" / "docs" / "runs" / "x"
    bad.mkdir(parents=True)
    (bad / "suite.json").write_text('{"measured_at": "2026", "evals": "not a list"}')
    run, why = recorded_run(tmp_path / "root")
    assert run is None and "not a suite run" in why
    assert "not a suite run" in ladder_markdown(task, run, None, why)


def test_a_ladder_the_run_did_not_time_is_not_called_missing(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    ladder = root / "guidance" / "scale_add" / "ladder"
    ladder.mkdir()
    for rung in ("plain", "l1"):
        shutil.copy(root / "guidance" / "scale_add" / "expert.py", ladder / f"{rung}.py")
    task = load_task("scale_add", root)
    text = ladder_markdown(task, _run(tmp_path, {"expert": _result(1.0, 8.0)}), None)
    assert "keeps a design ladder (plain, L1), but the recorded run did not time its rungs" in text
    assert "keeps no design ladder" not in text and "| medium | 8000.0 | 1000.0 | – |" in text


def _timed(medium_ms: float, seed: int, note: str) -> dict:
    result = _result(medium_ms, 8.0)
    result["seed"] = seed
    result["workloads"][0]["timing_note"] = note
    return result


def test_the_ladder_says_whether_its_rungs_were_timed_together(tmp_path):
    task = load_task("scale_add", FIXTURE_ROOT)
    together = "4 fresh input sets a round; timed in alternation with 1 other solution(s) of the same eval"
    run = _run(tmp_path, {"expert": _timed(1.0, 7, together), "plain": _timed(4.0, 7, together)})
    assert "timed together, in alternation, in one eval" in ladder_markdown(task, run, None)
    apart = _run(tmp_path, {"expert": _timed(1.0, 7, "4 fresh input sets a round"), "plain": _timed(4.0, 8, "")})
    assert "Each rung was timed in an eval of its own" in ladder_markdown(task, apart, None)
