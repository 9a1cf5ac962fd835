"""`workbench replay` shows every workload of an evaluation: a failing second workload is not hidden."""

from workbench.cli.sessions import eval_lines
from workbench.session.events import EvalResult


def test_every_workload_of_an_eval_is_shown_with_its_verdict_and_error():
    result = {
        "correct": False,
        "error": None,
        "workloads": [
            {"name": "tiny", "correct": True, "failure": None, "latency_ms": None, "speedup": None, "error": None},
            {
                "name": "large",
                "correct": False,
                "failure": "mismatch",
                "latency_ms": {"median": 0.0421},
                "speedup": 1.5,
                "error": "seed 5: 1 elements beyond atol",
            },  # fmt: skip
        ],
    }
    lines = eval_lines(EvalResult(turn=4, by="human", summary="", result=result))
    assert lines == [
        "[  4] eval by human: NOT CORRECT",
        "        tiny: correct",
        "        large: mismatch 42.1 us 1.50x: seed 5: 1 elements beyond atol",
    ]
