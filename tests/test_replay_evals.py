"""`workbench replay` shows every workload of an evaluation: a failing second workload is not hidden."""

from workbench.cli.sessions import eval_lines
from workbench.eval_feedback import compact_eval
from workbench.harness.result import DeviceInfo, EvalResult, Latency, StaticResult, WorkloadResult
from workbench.session import events

BOOM = "RuntimeError: boom (solution.py:12 in solution: raise RuntimeError('boom'))"


def test_every_workload_of_an_eval_is_shown_with_its_verdict_and_error():
    device = DeviceInfo("H200", "9.0", None, "2.11", "3.6", "cuda")
    workloads = [
        WorkloadResult("tiny", correct=True),
        WorkloadResult("large", failure="error", latency_ms=Latency(0.0421, 0.0421, 0.0, 4), error=BOOM),
    ]
    result = EvalResult("scale_add", "solution.py", "0" * 64, device, StaticResult(True), workloads, False, None)
    event = events.EvalResult(turn=4, by="human", summary=compact_eval(result), result=result.to_dict())
    assert eval_lines(event) == [
        "[  4] eval by human: NOT CORRECT",
        "        tiny: correct",
        f"        large: ERROR: {BOOM}",
        "        NOT CORRECT (mode cuda)",
    ]
