"""Sessions for the export's tests: the committed examples (recorded on an H200, timed), a session written here
through the real log writer as a GPU run would log it (timed evals as the harness's own result objects make them,
an incorrect one with mismatches, an interrupted one, two submissions under the `best` rule), its model output
and tool results holding HTML and script tags, and one as the CPU interpreter would log it (nothing timed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from conftest import REPO

from workbench.harness.result import DeviceInfo, EvalResult, Latency, Mismatch, StaticResult, WorkloadResult
from workbench.session.events import (
    EvalResult as EvalEvent,
)
from workbench.session.events import (
    Files,
    Human,
    Interrupt,
    ModelRequest,
    ModelResponse,
    SessionEnd,
    Submission,
    ToolCall,
    ToolResult,
    TurnEnd,
)
from workbench.session.log import SessionLog
from workbench.session.service import Session

EXAMPLES = REPO / "sessions" / "examples"
GUIDED = EXAMPLES / "sliding_window_max-guided-L123-20261203-095138-9a39"
UNGUIDED = EXAMPLES / "sliding_window_max-unguided-20261203-094954-fa60"

SCRIPT = "</script><script>alert(1)</script>"
MARKUP = '<img src=x onerror="alert(2)"><b>not bold</b>'
TIMED_ID = "timed-<i>gpu</i>-run"
USAGE = {"input_tokens": 1000, "output_tokens": 200, "cache_read_tokens": 0, "cache_write_tokens": 0}

# (turn, speedup of the workload "large") of the timed session's correct, finished evals
SPEEDUPS = {2: 1.4, 4: 2.1, 5: 1.2}


def solution_source(version: int) -> str:
    return f'"""Version {version}: {SCRIPT}"""\n\n\ndef solution(x):\n    return x * {version}  # {MARKUP}\n'


def eval_dict(turn: int, correct: bool = True, interrupted: bool = False) -> dict:
    """An eval as the harness reports it on a GPU: a small untimed workload and a timed large one."""
    device = DeviceInfo("NVIDIA H200", "9.0", "570.1", "2.13.0", "3.6.0", "cuda")
    small = WorkloadResult("tiny", correct=True, max_abs_err=0.01, max_rel_err=0.002, seeds_checked=3,
                           timing_note="not timed: too small to time")  # fmt: skip
    if not correct:
        large = WorkloadResult("large", failure="mismatch", max_abs_err=2.5, max_rel_err=0.3, mismatches=1480,
                               first_mismatches=[Mismatch("y", [0, 7], 0.785, 0.621)], seeds_checked=1)  # fmt: skip
    elif interrupted:
        large = WorkloadResult("large", failure="error", error="interrupted: the eval was cancelled")
    else:
        speedup = SPEEDUPS[turn]
        reference = Latency(0.042, 0.043, 0.0004, 200)
        mine = Latency(0.042 / speedup, 0.042 / speedup, 0.0003, 200)
        large = WorkloadResult("large", correct=True, max_abs_err=0.01, max_rel_err=0.002, seeds_checked=3,
                               latency_ms=mine, reference_ms=reference, speedup=speedup, sol_ms=0.0105,
                               sol_fraction=0.0105 / mine.median, sol_binding="hbm")  # fmt: skip
    result = EvalResult("scale", "solution.py", "0" * 64, device, StaticResult(True), [small, large])
    return result.finish().to_dict()


def write_timed_session(folder: Path) -> Path:
    """A six-turn GPU session under the `best` rule: turn 1 incorrect, 2 correct 1.4x, 3 interrupted, 4 submitted
    2.1x (not final), 5 evaluated 1.2x and submitted final. The counted submission is turn 4's."""
    start = dataclasses.replace(Session.open(GUIDED).start, session_id=TIMED_ID, version=2, mode="cuda",
                                device="NVIDIA H200", scoring="best", provider="anthropic", model="claude-test",
                                scripted=False, script=None, wall_clock_s=3600.0, cost_limit_usd=5.0,
                                context_window=200000, levels=[1, 2], task=f"scale{MARKUP}")  # fmt: skip
    folder.mkdir(parents=True)
    log = SessionLog(folder / "events.jsonl")
    try:
        log.append(start)
        log.append(Files(turn=0, changed={"solution.py": solution_source(0)}, deleted=[]))
        for turn in range(1, 6):
            _turn(log, turn)
        log.append(SessionEnd(turn=5, reason="submitted", turns=5, usage=USAGE, cost=0.25, best_speedup=2.1,
                              submissions=2))  # fmt: skip
    finally:
        log.close()
    return folder


INTERPRET_NOTE = "not timed in interpret mode (CPU interpreter): correctness only"  # the harness's words


def interpret_eval_dict(correct: bool) -> dict:
    """An eval as the harness reports it in interpret mode: two workloads checked, none timed."""
    device = DeviceInfo("cpu (no CUDA GPU)", None, None, "2.13.0", "3.6.0", "interpret")
    small = WorkloadResult("tiny", correct=True, max_abs_err=0.0, max_rel_err=0.0, seeds_checked=3,
                           timing_note=INTERPRET_NOTE)  # fmt: skip
    if correct:
        ragged = WorkloadResult("tiny-ragged", correct=True, max_abs_err=0.0, max_rel_err=0.0, seeds_checked=3,
                                timing_note=INTERPRET_NOTE)  # fmt: skip
    else:
        ragged = WorkloadResult("tiny-ragged", failure="mismatch", max_abs_err=1.5, max_rel_err=0.2, mismatches=40,
                                first_mismatches=[Mismatch("y", [0, 3], 0.5, 0.25)], seeds_checked=1)  # fmt: skip
    result = EvalResult("scale", "solution.py", "0" * 64, device, StaticResult(True), [small, ragged])
    return result.finish().to_dict()


def write_interpret_session(folder: Path) -> Path:
    """A three-turn session on the CPU interpreter: turn 1 evaluated incorrect, turn 2 correct, turn 3 submitted
    final. Nothing in it was timed."""
    start = dataclasses.replace(Session.open(GUIDED).start, session_id="interpret-run", version=2, mode="interpret",
                                device="cpu (no CUDA GPU)", script=None, task="scale")  # fmt: skip
    folder.mkdir(parents=True)
    log = SessionLog(folder / "events.jsonl")
    try:
        log.append(start)
        log.append(Files(turn=0, changed={"solution.py": solution_source(0)}, deleted=[]))
        for turn in (1, 2, 3):
            log.append(ModelRequest(turn=turn, messages=2 * turn, notes_delivered=[]))
            log.append(ModelResponse(turn=turn, content=[{"type": "text", "text": f"turn {turn}"}],
                                     stop_reason="tool_use", usage=USAGE, model="scripted", latency_s=0.0, retries=0,
                                     cost=None))  # fmt: skip
            if turn < 3:
                _call(log, turn, "write_file", {"path": "solution.py", "content": solution_source(turn)}, "wrote")
                log.append(Files(turn=turn, changed={"solution.py": solution_source(turn)}, deleted=[]))
                _call(log, turn, "evaluate", {}, "evaluated")
                log.append(EvalEvent(turn=turn, by="agent", summary="eval", result=interpret_eval_dict(turn == 2)))
            else:
                _call(log, turn, "submit", {"final": True}, "submission recorded")
                files = {"solution.py": solution_source(2)}
                log.append(Submission(turn=turn, by="agent", final=True, summary="ok",
                                      result=interpret_eval_dict(True), files=files))  # fmt: skip
            log.append(TurnEnd(turn=turn, user_message=None, files_changed=[], best_speedup=None, usage=USAGE,
                               cost=None, tools=[]))  # fmt: skip
        log.append(SessionEnd(turn=3, reason="submitted", turns=3, usage=USAGE, cost=None, best_speedup=None,
                              submissions=1))  # fmt: skip
    finally:
        log.close()
    return folder


def _turn(log: SessionLog, turn: int) -> None:
    log.append(ModelRequest(turn=turn, messages=2 * turn, notes_delivered=[]))
    words = f"Turn {turn}: {SCRIPT} and {MARKUP}"
    log.append(ModelResponse(turn=turn, content=[{"type": "text", "text": words}], stop_reason="tool_use",
                             usage=USAGE, model="claude-test", latency_s=1.0, retries=0, cost=0.05))  # fmt: skip
    if turn in (1, 2):
        _call(log, turn, "write_file", {"path": "solution.py", "content": solution_source(turn)}, "wrote solution.py")
        log.append(Files(turn=turn, changed={"solution.py": solution_source(turn)}, deleted=[]))
    name = "submit" if turn == 4 else "evaluate"
    if turn == 3:
        log.append(ToolCall(turn=turn, id=f"c{turn}", name=name, input={}))
        log.append(Interrupt(turn=turn, during="tool", tool=name))
        log.append(ToolResult(turn=turn, id=f"c{turn}", name=name, text="interrupted", is_error=True))
        log.append(EvalEvent(turn=turn, by="agent", summary="interrupted", result=eval_dict(turn, interrupted=True)))
        log.append(Human(turn=turn, action="note", text=f"a person's note {SCRIPT}"))
    else:
        _call(log, turn, name, {}, f"result of {name}: {MARKUP}")
        result = eval_dict(turn, correct=turn != 1)
        if turn == 4:
            files = {"solution.py": solution_source(2), "DESIGN.md": "# design"}
            log.append(Submission(turn=turn, by="agent", final=False, summary="ok", result=result, files=files))
        else:
            log.append(EvalEvent(turn=turn, by="agent", summary="eval", result=result))
    if turn == 5:
        _call(log, turn, "submit", {"final": True}, "submission recorded")
        log.append(Submission(turn=turn, by="agent", final=True, summary="ok", result=eval_dict(turn),
                              files={"solution.py": solution_source(2)}))  # fmt: skip
    log.append(TurnEnd(turn=turn, user_message=None, files_changed=[], best_speedup=None, usage=USAGE, cost=None,
                       tools=[name]))  # fmt: skip


def _call(log: SessionLog, turn: int, name: str, args: dict, output: str) -> None:
    log.append(ToolCall(turn=turn, id=f"{name}{turn}", name=name, input=args))
    log.append(ToolResult(turn=turn, id=f"{name}{turn}", name=name, text=output, is_error=False))
