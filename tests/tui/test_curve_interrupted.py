"""An eval a person interrupted is drawn as interrupted on the speedup plot, not as the solution's failure."""

from workbench.session.events import EvalResult, Interrupt, TurnEnd
from workbench.tui.curve import speedup_curve
from workbench.tui.widgets.plot import _cell, columns


def _eval(turn: int, correct: bool, error: str | None = None) -> EvalResult:
    return EvalResult(turn=turn, by="agent", summary="", result={"correct": correct, "error": error, "workloads": []})


def _end(turn: int) -> TurnEnd:
    return TurnEnd(turn=turn, user_message=None, files_changed=[], best_speedup=None, usage={}, cost=None, tools=[])


def test_an_interrupted_eval_is_no_verdict_and_is_drawn_as_interrupted():
    events = [
        _eval(1, False),
        _end(1),
        Interrupt(turn=2, during="tool", tool="evaluate"),
        _eval(2, False),  # what finished before the interrupt: not the solution's verdict
        _end(2),
        _eval(3, False, error="interrupted by the person"),  # an older log: the harness's own word for it
    ]
    marks = speedup_curve(events).marks
    assert [(m.correct, m.interrupted) for m in marks] == [(False, False), (None, True), (None, True)]
    cells = [_cell(c, timed=False, top=0.0).plain for c in columns(marks, 3)]
    assert cells == ["✗", "‖", "‖"]
