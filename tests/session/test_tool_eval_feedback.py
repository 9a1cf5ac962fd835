"""What the model reads of an eval: the worst element and the mismatch count of a failing workload, the times and
SOL of a timed one, and a note shared by every workload said once."""

import threading

from conftest import REPO

from workbench.harness.result import DeviceInfo, EvalResult, Latency, Mismatch, StaticResult, WorkloadResult
from workbench.session.tools import ToolBox, compact_eval
from workbench.session.workspace import create_workspace
from workbench.tasks import load_task

INTERPRET_NOTE = "not timed in interpret mode (CPU interpreter): correctness only"


def result(workloads, mode="interpret", correct=False, speedup=None):
    device = DeviceInfo("cpu", None, None, "2.9", "3.6", mode)
    return EvalResult("rmsnorm_residual", "solution.py", "0" * 64, device, StaticResult(True), workloads, correct,
                      speedup)  # fmt: skip


def test_a_failing_workload_shows_its_worst_element_and_how_many_are_wrong():
    wrong = WorkloadResult(
        "tiny-ragged", failure="mismatch", mismatches=1473, max_abs_err=4.375, max_rel_err=0.273,
        error="seed 7: y: 1473 elements beyond atol=0.016, rtol=0.016 of 1600; first at [0, 0]; worst at [2, 275]: "
        "got -20.625, expected -16.25",
        worst=Mismatch("y", [2, 275], -20.625, -16.25, 4.375, 0.2692307),
        first_mismatches=[Mismatch("y", [0, i], 0.5 + i, 0.25 + i) for i in range(5)],
    )  # fmt: skip
    text = compact_eval(result([WorkloadResult("tiny", correct=True, timing_note=INTERPRET_NOTE), wrong]))
    assert text.splitlines() == [
        "tiny: correct",
        "tiny-ragged: INCORRECT (mismatch): seed 7: y: 1473 elements beyond atol=0.016, rtol=0.016 of 1600",
        "  worst y[2, 275]: got -20.625, expected -16.25, abs err 4.375, rel err 0.269231; 1,473 wrong elements in all",
        "  first: y[0, 0] got 0.5, expected 0.25; y[0, 1] got 1.5, expected 1.25; y[0, 2] got 2.5, expected 2.25",
        "note (tiny): " + INTERPRET_NOTE,
        "NOT CORRECT (mode interpret)",
    ]


def test_timed_workloads_show_latency_reference_speedup_and_sol():
    timed = WorkloadResult("llama3-8b-prefill", correct=True, latency_ms=Latency(0.1412, 0.1415, 0.0003, 40),
                           reference_ms=Latency(0.5301, 0.531, 0.001, 40), speedup=3.754, sol_ms=0.1121,
                           sol_fraction=0.794, sol_binding="hbm",
                           timing_note="4 fresh input sets a round, ...")  # fmt: skip
    ci = WorkloadResult("tiny", correct=True, timing_note="CI-sized workload (interpret = true): correctness only")
    text = compact_eval(result([timed, ci], mode="cuda", correct=True, speedup=3.754))
    assert text.splitlines() == [
        "llama3-8b-prefill: correct, 141.2 us vs reference 530.1 us, speedup 3.75x; SOL 112.1 us (hbm-bound), "
        "at 79% of SOL",
        "tiny: correct",
        "note (tiny): CI-sized workload (interpret = true): correctness only",
        "CORRECT, speedup geomean 3.754x (mode cuda)",
    ]


def test_the_interpreter_note_is_said_once_for_all_workloads():
    workloads = [WorkloadResult(n, correct=True, timing_note=INTERPRET_NOTE, max_abs_err=0.0078, max_rel_err=0.0039)
                 for n in ("tiny", "tiny-ragged")]  # fmt: skip
    text = compact_eval(result(workloads, correct=True))
    assert text.count(INTERPRET_NOTE) == 1 and f"note: {INTERPRET_NOTE}" in text
    assert "tiny: correct (max abs err 0.0078, max rel err 0.0039)" in text


def test_an_error_keeps_the_end_of_a_traceback():
    error = "Traceback (most recent call last):\n" + "".join(f'  File "x.py", line {i}\n' for i in range(10))
    error += "ValueError: the last line says what failed"
    text = compact_eval(result([WorkloadResult("tiny", failure="error", error=error)]))
    assert "tiny: ERROR: ...\n" in text and "ValueError: the last line says what failed" in text
    assert 'line 0"' not in text


def test_a_wrong_solution_evaluated_shows_the_worst_element(tmp_path):
    task = load_task("rmsnorm_residual", REPO)
    create_workspace(task, tmp_path / "work", set())
    (tmp_path / "work" / "solution.py").write_text((task.guidance_path / "wrong" / "mean_over_block.py").read_text())
    outcome = ToolBox(task, tmp_path / "work", "interpret").execute(
        "evaluate", {"workloads": ["tiny-ragged"]}, threading.Event()
    )
    assert outcome.eval_result is not None and not outcome.eval_result.correct
    lines = outcome.text.splitlines()
    assert lines[0].startswith("tiny-ragged: INCORRECT (mismatch): seed ")
    assert lines[1].startswith("  worst y[") and "abs err" in lines[1] and "rel err" in lines[1]
    assert "wrong elements in all" in lines[1] and lines[2].startswith("  first: y[")
